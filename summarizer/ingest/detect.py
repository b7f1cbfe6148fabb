"""`--format auto`: which input format a file is in, from its first JSON value.

Each format is recognised by keys its own published shape always has. When nothing matches, the error
names every format tried and the nearest miss (including agent logs this version recognises but cannot
import yet), so a user learns what to pass or what is missing instead of reading a parser's complaint.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from summarizer.domain.errors import SummarizerError
from summarizer.ingest.cline import looks_like_cline
from summarizer.ingest.codex import is_older_session_line

HEAD_BYTES = 1 << 20
"""How much of the input detection reads (it is read again from the start for parsing)."""

IMPORTABLE = (
    "claude-code",
    "codex",
    "gemini-cli",
    "opencode",
    "openhands",
    "swe-agent",
    "cline",
    "canonical",
    "openai",
    "anthropic",
    "responses",
    "sharegpt",
)

_KNOWN_BUT_NOT_IMPORTABLE: dict[str, str] = {}
"""First-line types of agent logs this version recognises but cannot import (none at present)."""

_CODEX_LINE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})


_RESPONSES_ITEM_TYPES = frozenset(
    {"function_call", "function_call_output", "reasoning", "custom_tool_call", "custom_tool_call_output"}
)


_ANTHROPIC_BLOCK_TYPES = frozenset({"text", "image", "document", "tool_use", "tool_result", "thinking"})


class UndetectedFormat(SummarizerError, ValueError):
    """No known format matches the input; the message names those tried and the nearest miss."""


@dataclass(frozen=True, slots=True)
class Detected:
    format: str
    reason: str


def detect(head: bytes, label: str) -> Detected:
    """The format of an input whose first bytes are `head` (at most HEAD_BYTES of it)."""
    value, shape = _first_value(head)
    if value is None:
        raise UndetectedFormat(f"{label}: {shape}; nothing to detect a format from")
    found = _match(value)
    if isinstance(found, Detected):
        return found
    tried = ", ".join(IMPORTABLE)
    raise UndetectedFormat(f"{label}: no known format matches ({shape}; tried {tried}); nearest: {found}")


def _first_value(head: bytes) -> tuple[Any, str]:
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    if not text.strip():
        return None, "the input is empty"
    stripped = text.lstrip()
    try:
        return json.loads(stripped), "one JSON document"
    except json.JSONDecodeError:
        pass
    lines = [line for line in stripped.splitlines()[:50] if line.strip()]
    try:
        first = json.loads(lines[0])
    except json.JSONDecodeError:
        first = None
    if first is not None:
        if isinstance(first, Mapping) and "role" in first and "type" not in first:
            for line in lines[1:]:  # a Responses input opens with a plain message: look further
                try:
                    later = json.loads(line)
                except json.JSONDecodeError:
                    break
                if isinstance(later, Mapping) and str(later.get("type")) in _RESPONSES_ITEM_TYPES:
                    return later, "JSON Lines"
        return first, "JSON Lines"
    if stripped[0] in "[{" and len(head) >= HEAD_BYTES:  # a document larger than the head: its opening
        return _opening(stripped), "one JSON document"
    return None, "the input is neither JSON nor JSON Lines"


def _opening(text: str) -> Any:
    """The keys at the start of a large document, enough to tell the formats apart."""
    decoder = json.JSONDecoder()
    if text.startswith("["):
        try:
            value, _ = decoder.raw_decode(text[1:].lstrip())
            return [value]
        except json.JSONDecodeError:
            return []
    keys: dict[str, Any] = {}
    for key in ("messages", "input", "output", "conversations", "system", "instructions"):
        if f'"{key}"' in text[:4096]:
            keys[key] = []
    return keys


def _match(value: Any) -> Detected | str:
    if isinstance(value, list):
        first = value[0] if value else None
        if isinstance(first, Mapping) and "source" in first and ("action" in first or "observation" in first):
            return Detected("openhands", "an OpenHands event stream (source with action or observation)")
        if isinstance(first, Mapping) and ("from" in first or "value" in first):
            return Detected("sharegpt", "an array of ShareGPT turns")
        if isinstance(first, Mapping) and "conversations" in first:
            return Detected("sharegpt", "an array of ShareGPT conversations")
        if isinstance(first, Mapping) and "role" in first and looks_like_cline(value):
            return Detected("cline", "a Cline task history (<task>, <environment_details>, Result: texts)")
        if isinstance(first, Mapping) and "role" in first:
            return Detected(
                _chat_flavour([m for m in value if isinstance(m, Mapping)]), "an array of chat messages"
            )
        return "a JSON array whose items are not chat messages"
    if not isinstance(value, Mapping):
        return "a JSON value that is not an object"
    return _match_object(value)


def _match_object(obj: Mapping[str, Any]) -> Detected | str:
    kind = obj.get("type")
    if isinstance(kind, str) and kind in _KNOWN_BUT_NOT_IMPORTABLE:
        return f"{_KNOWN_BUT_NOT_IMPORTABLE[kind]} (its first line has type {kind!r}), which cannot be imported yet"
    log = _agent_log(obj, kind)
    if log is not None:
        return log
    if "kind" in obj and "content" in obj:
        return Detected("canonical", "canonical messages (kind and content)")
    if "conversations" in obj:
        return Detected("sharegpt", "ShareGPT conversations")
    if kind == "message" and "role" in obj and _anthropic_response(obj):
        return Detected("anthropic", "an Anthropic Messages response (type 'message' with content blocks)")
    if str(kind) in _RESPONSES_ITEM_TYPES or (kind == "message" and "role" in obj):
        return Detected("responses", f"OpenAI Responses items (type {kind!r})")
    if "input" in obj or "output" in obj or "instructions" in obj:
        return Detected("responses", "an OpenAI Responses object (input/output)")
    messages = obj.get("messages")
    if isinstance(messages, list):
        if isinstance(obj.get("system"), (str, list)):
            return Detected("anthropic", "Anthropic Messages (a top-level system and messages)")
        return Detected(
            _chat_flavour([m for m in messages if isinstance(m, Mapping)]), "a chat document (messages)"
        )
    if "role" in obj:
        return Detected(_chat_flavour([obj]), "chat messages, one per line")
    if isinstance(kind, str):
        return f"Claude Code's event shape (type {kind!r}) without a session id"
    keys = ", ".join(sorted(str(k) for k in obj)[:8])
    return f"an object with keys {keys or 'none'}, which no format uses"


def _agent_log(obj: Mapping[str, Any], kind: object) -> Detected | None:
    """The coding agents' own logs: Codex rollouts, Gemini CLI sessions, Claude Code transcripts."""
    if isinstance(kind, str) and kind in _CODEX_LINE_TYPES and isinstance(obj.get("payload"), Mapping):
        return Detected("codex", f"a Codex CLI rollout (type {kind!r} with a payload)")
    if is_older_session_line(obj):
        return Detected("codex", "a Codex CLI rollout of the older layout (a bare id and timestamp header)")
    messages = obj.get("messages")
    if isinstance(obj.get("info"), Mapping) and isinstance(messages, list):
        first = messages[0] if messages else None
        if first is None or (isinstance(first, Mapping) and "parts" in first and "info" in first):
            return Detected("opencode", "an opencode session export (info and messages with parts)")
    if isinstance(obj.get("trajectory"), list) and isinstance(obj.get("history"), list):
        return Detected("swe-agent", "a SWE-agent trajectory (trajectory and history)")
    if kind is None and "sessionId" in obj and ("projectHash" in obj or "startTime" in obj):
        return Detected("gemini-cli", "a Gemini CLI session (sessionId and projectHash)")
    if isinstance(kind, str) and ("sessionId" in obj or "uuid" in obj or "leafUuid" in obj):
        return Detected("claude-code", f"Claude Code transcript events (type {kind!r} with a session id)")
    return None


def _anthropic_response(obj: Mapping[str, Any]) -> bool:
    """A Messages API response (`{id, type: "message", role, content, stop_reason, ...}`), told apart from a
    Responses `message` item, whose blocks are typed `input_text` / `output_text` and which has no
    `stop_reason`."""
    if "stop_reason" in obj:
        return True
    content = obj.get("content")
    if not isinstance(content, list) or not content:
        return False
    types = {b.get("type") for b in content if isinstance(b, Mapping)}
    return bool(types) and types <= _ANTHROPIC_BLOCK_TYPES


def _chat_flavour(messages: list[Mapping[str, Any]]) -> str:
    """Anthropic when a message carries tool_use/tool_result blocks; OpenAI otherwise."""
    for message in messages:
        if "tool_calls" in message or message.get("role") == "tool":
            return "openai"
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(b, Mapping) and b.get("type") in ("tool_use", "tool_result", "thinking")
            for b in content
        ):
            return "anthropic"
    return "openai"
