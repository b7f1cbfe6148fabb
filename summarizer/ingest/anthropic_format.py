"""Anthropic Messages API messages, as found in request bodies and chat exports.

The Messages API returns tool results in user-role messages. Such a message answers the running exchange
rather than starting a new one, so its parts are marked to continue it; reading it as a fresh user turn
would split every tool call from its result. As in the OpenAI parser, unused keys are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.drafts import Draft, finish, reject_repeated_call_ids
from summarizer.ingest.fields import (
    expect_object,
    optional_bool,
    read_extras,
    reject_nul,
    required_role,
    required_str,
)
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord

ROLES: tuple[str, ...] = ("user", "assistant", "system")
BLOCK_TYPES: tuple[str, ...] = (
    "text",
    "image",
    "document",
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
)
_SKIPPED = frozenset({"thinking", "redacted_thinking"})
# Tools the API runs itself: their call and result both sit in the assistant message.
SERVER_TOOL_BLOCKS = frozenset(BLOCK_TYPES[BLOCK_TYPES.index("server_tool_use") :])


def parse_anthropic(obj: Mapping[str, Any], default_agent: str | None, where: str) -> list[IngestRecord]:
    reject_nul(obj)
    role = required_role(obj, ROLES)
    extras = read_extras(obj, default_agent)
    blocks = content_blocks(obj)
    if role == "system":
        drafts = [Draft(Kind.SYSTEM, _joined_text(blocks, "a system message", placeholders=False))]
    elif role == "assistant":
        drafts = _assistant(blocks)
    else:
        drafts = _user(blocks)
    return finish(drafts, extras, where)


def parse_anthropic_system(value: object, default_agent: str | None, where: str) -> list[IngestRecord]:
    """The request's top-level `system` (a string or text blocks) as a leading system message."""
    reject_nul(value)
    if isinstance(value, str):
        text = value
    elif isinstance(value, list):
        text = _joined_text(indexed_blocks(value, "system"), "system", placeholders=False)
    else:
        raise Problem(f"system must be a string or an array of text blocks, got {json_type(value)}")
    extras = read_extras({}, default_agent)
    return finish([Draft(Kind.SYSTEM, text)], extras, where)


_Block = tuple[str, str, Mapping[str, Any]]  # (label for errors, block type, block)


def content_blocks(
    obj: Mapping[str, Any], allowed: tuple[str, ...] = BLOCK_TYPES, *, text_required: bool = False
) -> list[_Block]:
    """`content` as typed blocks; a plain string is one text block."""
    if "content" not in obj:
        raise Problem("missing 'content'")
    content = obj["content"]
    if isinstance(content, str):
        return [("content", "text", {"type": "text", "text": content})]
    if not isinstance(content, list):
        raise Problem(f"content must be a string or an array of content blocks, got {json_type(content)}")
    return indexed_blocks(content, "content", allowed, text_required=text_required)


def indexed_blocks(
    values: list[Any], field: str, allowed: tuple[str, ...] = BLOCK_TYPES, *, text_required: bool = False
) -> list[_Block]:
    """Each value as a typed block of one of the `allowed` types, labelled `field[i]` for errors; with
    `text_required`, a text block without its text is refused here."""
    blocks = []
    for index, value in enumerate(values):
        label = f"{field}[{index}]"
        block = expect_object(value, label)
        kind = required_str(block, "type", path=f"{label}.")
        if kind not in allowed:
            raise Problem(f"{label}.type {kind!r} is unknown (expected one of: {', '.join(allowed)})")
        if text_required and kind == "text":
            required_str(block, "text", path=f"{label}.")
        blocks.append((label, kind, block))
    return blocks


def _joined_text(blocks: list[_Block], field: str, *, placeholders: bool, separator: str = "\n") -> str:
    """Text blocks joined with newlines (or `separator`); images and documents leave a placeholder where
    allowed."""
    parts = []
    for label, kind, block in blocks:
        if kind == "text":
            parts.append(required_str(block, "text", path=f"{label}."))
        elif placeholders and kind in ("image", "document"):
            parts.append(_placeholder(kind, block))
        elif kind not in _SKIPPED:
            raise Problem(f"{label}: a {kind} block is not allowed in {field}")
    return separator.join(parts)


def _placeholder(kind: str, block: Mapping[str, Any]) -> str:
    title = block.get("title")
    return f"[{kind}: {title}]" if isinstance(title, str) and title else f"[{kind}]"


def _assistant(blocks: list[_Block]) -> list[Draft]:
    """Server-side tool activity first (it ran while the answer was written), then the text, then the
    calls the host must run."""
    drafts = [_server_tool(label, kind, block) for label, kind, block in blocks if kind in SERVER_TOOL_BLOCKS]
    text_blocks = [b for b in blocks if b[1] != "tool_use" and b[1] not in SERVER_TOOL_BLOCKS]
    # An answer that cites sources comes split around each cited passage, mid-sentence: one text, back to back.
    cited = any(kind == "text" and block.get("citations") for _, kind, block in text_blocks)
    text = _joined_text(
        text_blocks, "an assistant message", placeholders=True, separator="" if cited else "\n"
    )
    if text:
        drafts.append(Draft(Kind.ASSISTANT, text))
    for label, _, block in (b for b in blocks if b[1] == "tool_use"):
        call_id = required_str(block, "id", allow_empty=False, path=f"{label}.")
        name = required_str(block, "name", allow_empty=False, path=f"{label}.")
        drafts.append(Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input=block.get("input")))
    reject_repeated_call_ids(drafts)
    return drafts


def _server_tool(label: str, kind: str, block: Mapping[str, Any]) -> Draft:
    """A server tool's call (name and input) or result (titles and URLs, or its error), as `tool` activity."""
    if kind.endswith("_use"):
        call_id = required_str(block, "id", allow_empty=False, path=f"{label}.")
        name = required_str(block, "name", allow_empty=False, path=f"{label}.")
        return Draft(Kind.TOOL, "", tool_call_id=call_id, name=name, input=block.get("input"))
    call_id = required_str(block, "tool_use_id", allow_empty=False, path=f"{label}.")
    text, failed = _server_result_text(block.get("content"))
    return Draft(Kind.TOOL, text, tool_call_id=call_id, name=kind, is_error=failed or None)


def _server_result_text(content: object) -> tuple[str, bool]:
    if isinstance(content, str):
        return content, False
    if isinstance(content, dict) and "error_code" in content:
        return f"error: {content['error_code']}", True
    if isinstance(content, list):
        lines = []
        for item in content:
            if isinstance(item, dict) and isinstance(item.get("url"), str):
                title = item.get("title")
                lines.append(f"{title} <{item['url']}>" if isinstance(title, str) and title else item["url"])
            elif isinstance(item, dict) and isinstance(item.get("text"), str):
                lines.append(item["text"])
        return "\n".join(lines), False
    return ("" if content is None else json.dumps(content, ensure_ascii=False, sort_keys=True)), False


def _user(blocks: list[_Block]) -> list[Draft]:
    results = [b for b in blocks if b[1] == "tool_result"]
    others = [b for b in blocks if b[1] != "tool_result"]
    text = _joined_text(others, "a user message", placeholders=True)
    if not results:
        return [Draft(Kind.USER, text)]
    drafts = [_tool_result(label, block) for label, _, block in results]
    if text:
        drafts.append(Draft(Kind.USER, text, continues_exchange=True))
    return drafts


def _tool_result(label: str, block: Mapping[str, Any]) -> Draft:
    call_id = required_str(block, "tool_use_id", allow_empty=False, path=f"{label}.")
    # Exporters (Claude Code among them) write `"is_error": null` for "not an error".
    is_error = None if block.get("is_error") is None else optional_bool(block, "is_error", path=f"{label}.")
    content = block.get("content", "")
    if isinstance(content, list):
        text = _joined_text(
            indexed_blocks(content, f"{label}.content"), f"{label}.content", placeholders=True
        )
    elif isinstance(content, str):
        text = content
    else:
        raise Problem(f"{label}.content must be a string or an array of blocks, got {json_type(content)}")
    return Draft(Kind.TOOL_RESULT, text, tool_call_id=call_id, is_error=is_error)
