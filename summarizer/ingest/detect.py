"""`--format auto`: which input format a file is in, from its first JSON values.

Each format is recognised by keys its own published shape always has. A JSON Lines input is judged by the
first line that carries a format's signature, within the first HEAD_LINES lines and HEAD_BYTES bytes:
bookkeeping lines (Claude Code's `file-history-snapshot`, `queue-operation`, ...) and lines that are not
JSON are passed over (a line of objects written back to back is judged by each of them), and an input of
Claude Code bookkeeping alone is still Claude Code. When nothing matches, the error names every format
tried and the nearest miss, with the `--format` to pass when the nearest is a known format, so a user
learns what to pass instead of reading a parser's complaint.

`ingest`, `watch` and the hooks all detect through `detect`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from summarizer.domain.errors import SummarizerError
from summarizer.ingest.aider import looks_like_aider
from summarizer.ingest.claude_code import CLAUDE_CODE_BOOKKEEPING
from summarizer.ingest.cline import looks_like_cline
from summarizer.ingest.codex import is_older_session_line
from summarizer.ingest.copilot import looks_like_copilot_event
from summarizer.ingest.jsontext import loads_json, loads_sequence

HEAD_BYTES = 1 << 20
"""How much of the input detection reads (it is read again from the start for parsing)."""
HEAD_LINES = 64
"""How many JSON Lines lines detection looks through for one that carries a format's signature."""
IMPORTABLE = (
    "claude-code",
    "codex",
    "gemini-cli",
    "opencode",
    "openhands",
    "swe-agent",
    "cline",
    "aider",
    "copilot",
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


_ANTHROPIC_BLOCK_TYPES = frozenset(
    {
        "text",
        "image",
        "document",
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "mcp_tool_use",
        "search_result",
        "container_upload",
    }
)
"""Messages API content blocks; any `*_tool_result` block (web search, web fetch, code execution, MCP)
is one too."""


class UndetectedFormat(SummarizerError, ValueError):
    """No known format matches the input; the message names those tried and the nearest miss."""


@dataclass(frozen=True, slots=True)
class Detected:
    format: str
    reason: str


@dataclass(frozen=True, slots=True)
class Miss:
    """The nearest format an input did not match, and the format to pass if it is one."""

    text: str
    format: str | None = None


def detect(head: bytes, label: str) -> Detected:
    """The format of an input whose first bytes are `head` (at most HEAD_BYTES of it)."""
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff").lstrip()
    if not text:
        raise UndetectedFormat(f"{label}: the input is empty; nothing to detect a format from")
    if text[0] not in "[{" and looks_like_aider(text):  # Markdown, not JSON
        return Detected("aider", "an aider chat history ('# aider chat started at' lines)")
    try:
        document = loads_json(text)
    except ValueError:
        found, shape = _from_lines(text, truncated=len(head) >= HEAD_BYTES)
    else:
        found, shape = _match(document), "one JSON document"
        if isinstance(document, Mapping) and _claude_code_bookkeeping(document):  # one line so far
            found, shape = _from_lines(text, truncated=False)
    if isinstance(found, Detected):
        return found
    if found is None:
        raise UndetectedFormat(f"{label}: {shape}; nothing to detect a format from")
    tried = ", ".join(IMPORTABLE)
    hint = f"; pass --format {found.format} if it is one" if found.format else ""
    raise UndetectedFormat(
        f"{label}: no known format matches ({shape}; tried {tried}); nearest: {found.text}{hint}"
    )


def _from_lines(text: str, *, truncated: bool) -> tuple[Detected | Miss | None, str]:
    """The format of the first line (of the first HEAD_LINES) that carries a signature; bookkeeping lines
    and lines that are not JSON are passed over."""
    lines = [line for line in text.splitlines()[:HEAD_LINES] if line.strip()]
    if truncated and len(lines) <= 1 and lines[0].startswith("{"):  # one line longer than the head
        found = _from_opening(lines[0])
        if isinstance(found, Detected):
            return found, "JSON Lines whose first line is longer than the part read"
        return _match(_opening(text)), "one JSON document"
    nearest: Miss | None = None
    bookkeeping: str | None = None
    values = 0
    for index, line in enumerate(lines):
        try:
            on_line = loads_sequence(line, strict=False)  # a line may hold objects written back to back
        except ValueError:
            continue
        for value in on_line:
            values += 1
            if isinstance(value, Mapping) and _claude_code_bookkeeping(value):
                bookkeeping = bookkeeping or str(value.get("type"))
                continue
            found = _match(value)
            if isinstance(found, Detected):
                if found.format == "openai" and isinstance(value, Mapping) and "type" not in value:
                    return _responses_later(lines[index + 1 :]) or found, "JSON Lines"
                return found, "JSON Lines"
            nearest = nearest or found
    if bookkeeping is not None:
        reason = f"Claude Code bookkeeping lines only so far (type {bookkeeping!r})"
        return Detected("claude-code", reason), "JSON Lines"
    if values == 0 and text[0] in "[{" and truncated:  # a document larger than the head: its opening
        return _match(_opening(text)), "one JSON document"
    if values == 0:
        return None, "the input is neither JSON nor JSON Lines"
    return nearest, "JSON Lines"


def _claude_code_bookkeeping(obj: Mapping[str, Any]) -> bool:
    """A Claude Code line that carries no conversation (and so says little about the format)."""
    kind = obj.get("type")
    return (
        isinstance(kind, str)
        and kind in CLAUDE_CODE_BOOKKEEPING
        and "payload" not in obj
        and "role" not in obj
    )


def _responses_later(lines: list[str]) -> Detected | None:
    """A Responses input opens with a plain message: a typed item further on tells it from chat."""
    for line in lines:
        try:
            later = loads_json(line)
        except ValueError:
            return None
        if isinstance(later, Mapping) and str(later.get("type")) in _RESPONSES_ITEM_TYPES:
            found = _match(later)
            return found if isinstance(found, Detected) else None
    return None


_LINE_TYPE = re.compile(r'"type"\s*:\s*"([^"]{1,64})"')


def _from_opening(line: str) -> Detected | Miss:
    """The format of a JSON Lines input whose first line is longer than the part read (a pasted image),
    from the keys at its start."""
    start = line[:8192]
    kind = _LINE_TYPE.search(start)
    if kind is not None and kind.group(1) in _CODEX_LINE_TYPES and '"payload"' in start:
        return Detected("codex", f"a Codex CLI rollout (type {kind.group(1)!r} with a payload)")
    if '"sessionId"' in start and kind is not None:
        return Detected(
            "claude-code", f"Claude Code transcript events (type {kind.group(1)!r} with a session id)"
        )
    return Miss("a first line longer than the part read, without a signature at its start")


def _opening(text: str) -> Any:
    """The keys at the start of a large document, enough to tell the formats apart."""
    decoder = json.JSONDecoder()
    if text.startswith("["):
        try:
            value, _ = decoder.raw_decode(text[1:].lstrip())
            return [value]
        except (ValueError, RecursionError):  # not JSON, or hostile (too deep, too long a number)
            return []
    keys: dict[str, Any] = {}
    for key in ("messages", "input", "output", "conversations", "system", "instructions"):
        if f'"{key}"' in text[:4096]:
            keys[key] = []
    return keys


def _match(value: Any) -> Detected | Miss:
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
        return Miss("a JSON array whose items are not chat messages")
    if not isinstance(value, Mapping):
        return Miss("a JSON value that is not an object")
    return _match_object(value)


def _match_object(obj: Mapping[str, Any]) -> Detected | Miss:
    kind = obj.get("type")
    if isinstance(kind, str) and kind in _KNOWN_BUT_NOT_IMPORTABLE:
        return Miss(
            f"{_KNOWN_BUT_NOT_IMPORTABLE[kind]} (its first line has type {kind!r}), which cannot be imported yet"
        )
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
    return _miss(obj, kind)


def _miss(obj: Mapping[str, Any], kind: object) -> Miss:
    """What an object no format matches is nearest to."""
    if isinstance(kind, str) and ("message" in obj or "parentUuid" in obj):
        return Miss(
            f"Claude Code's event shape (type {kind!r}) without a session id (name the agent with --agent)",
            "claude-code",
        )
    if isinstance(kind, str):
        return Miss(f"an event of type {kind!r} that no format uses")
    keys = ", ".join(sorted(str(k) for k in obj)[:8])
    return Miss(f"an object with keys {keys or 'none'}, which no format uses")


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
    if _history_only(obj):
        return Detected("swe-agent", "a SWE-agent trajectory holding only its history")
    if kind is None and "sessionId" in obj and ("projectHash" in obj or "startTime" in obj):
        return Detected("gemini-cli", "a Gemini CLI session (sessionId and projectHash)")
    if looks_like_copilot_event(obj):
        return Detected("copilot", f"GitHub Copilot agent events (type {kind!r} with data)")
    if isinstance(kind, str) and ("sessionId" in obj or "uuid" in obj or "leafUuid" in obj):
        return Detected("claude-code", f"Claude Code transcript events (type {kind!r} with a session id)")
    return None


def _history_only(obj: Mapping[str, Any]) -> bool:
    """A SWE-agent trajectory saved with its `history` alone: chat messages, each with a role."""
    history = obj.get("history")
    if not isinstance(history, list) or not history or "messages" in obj:
        return False
    first = history[0]
    return isinstance(first, Mapping) and isinstance(first.get("role"), str)


def _anthropic_response(obj: Mapping[str, Any]) -> bool:
    """A Messages API response (`{id, type: "message", role, content, stop_reason, ...}`), told apart from a
    Responses `message` item, whose blocks are typed `input_text` / `output_text` and which has no
    `stop_reason`."""
    if "stop_reason" in obj:
        return True
    content = obj.get("content")
    if not isinstance(content, list) or not content:
        return False
    types = {str(b.get("type")) for b in content if isinstance(b, Mapping)}
    return bool(types) and all(t in _ANTHROPIC_BLOCK_TYPES or t.endswith("_tool_result") for t in types)


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
