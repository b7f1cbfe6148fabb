"""OpenAI Responses API items, as found in a request's `input`, a response's `output`, or stored item lists.

Each item is one thing that happened: a message, a function call, its output, a reasoning step, a built-in
tool's activity. Reasoning is the model's private scratch work and is left out, as Anthropic thinking
blocks are. Built-in tools (web search, file search, code interpreter...) run on the provider's side and
are kept as generic `tool` activity so a summary can mention them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.drafts import Draft, finish
from summarizer.ingest.fields import joined_parts, read_extras, reject_nul, required_role, required_str
from summarizer.ingest.openai_format import decode_arguments
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord

ROLES: tuple[str, ...] = ("user", "assistant", "system", "developer")
SKIPPED_TYPES = frozenset({"reasoning", "item_reference", "compaction"})
BUILT_IN_CALLS = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "computer_call",
        "computer_call_output",
        "code_interpreter_call",
        "image_generation_call",
        "local_shell_call",
        "local_shell_call_output",
        "shell_call",
        "shell_call_output",
        "apply_patch_call",
        "apply_patch_call_output",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
    }
)
ITEM_TYPES: tuple[str, ...] = (
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    *sorted(SKIPPED_TYPES),
    *sorted(BUILT_IN_CALLS),
)
_TEXT_PARTS = {"input_text": "text", "output_text": "text", "text": "text", "refusal": "refusal"}
_PLACEHOLDERS = {"input_image": "[image]", "input_file": "[file]", "input_audio": "[audio]"}


def parse_responses_item(obj: Mapping[str, Any], default_agent: str | None, where: str) -> list[IngestRecord]:
    reject_nul(obj)
    kind = obj.get("type", "message" if "role" in obj else None)
    if not isinstance(kind, str):
        raise Problem("missing 'type' (an item needs a type, or a role for a message)")
    if kind in SKIPPED_TYPES:
        return []
    extras = read_extras(obj, default_agent)
    return finish(_drafts(kind, obj), extras, where)


def parse_responses_instructions(value: object, default_agent: str | None, where: str) -> list[IngestRecord]:
    """A request's `instructions` as a leading system message."""
    reject_nul(value)
    if not isinstance(value, str):
        raise Problem(f"instructions must be a string, got {json_type(value)}")
    return finish([Draft(Kind.SYSTEM, value)], read_extras({}, default_agent), where)


def _drafts(kind: str, obj: Mapping[str, Any]) -> list[Draft]:
    if kind == "message":
        return _message(obj)
    if kind in ("function_call", "custom_tool_call"):
        call_id = required_str(obj, "call_id", allow_empty=False)
        name = required_str(obj, "name", allow_empty=False)
        if kind == "custom_tool_call":
            tool_input: Any = obj.get("input")
        else:
            tool_input = decode_arguments(obj, "")
        return [Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input=tool_input)]
    if kind in ("function_call_output", "custom_tool_call_output"):
        call_id = required_str(obj, "call_id", allow_empty=False)
        return [Draft(Kind.TOOL_RESULT, _output_text(obj), tool_call_id=call_id)]
    if kind in BUILT_IN_CALLS:
        return [_built_in(kind, obj)]
    raise Problem(f"unknown item type {kind!r} (expected one of: {', '.join(ITEM_TYPES)})")


def _message(obj: Mapping[str, Any]) -> list[Draft]:
    role = required_role(obj, ROLES)
    text = _content_text(obj, allow_media=role == "user")
    if role in ("system", "developer"):
        return [Draft(Kind.SYSTEM, text)]
    if role == "user":
        return [Draft(Kind.USER, text)]
    return [Draft(Kind.ASSISTANT, text)] if text else []


def _content_text(obj: Mapping[str, Any], *, allow_media: bool) -> str:
    if "content" not in obj:
        raise Problem("missing 'content'")
    return joined_parts(obj["content"], _TEXT_PARTS, _PLACEHOLDERS if allow_media else {})


def _output_text(obj: Mapping[str, Any]) -> str:
    if "output" not in obj:
        raise Problem("missing 'output'")
    return joined_parts(obj["output"], _TEXT_PARTS, _PLACEHOLDERS, field="output")


def _built_in(kind: str, obj: Mapping[str, Any]) -> Draft:
    """A provider-side tool's activity, kept as what it did (its action, queries or output), not its data."""
    detail = {
        k: obj[k] for k in ("action", "queries", "code", "arguments", "name", "server_label") if k in obj
    }
    status = obj.get("status")
    content = json.dumps(detail, ensure_ascii=False, sort_keys=True) if detail else ""
    call_id = obj.get("call_id") if isinstance(obj.get("call_id"), str) and obj.get("call_id") else None
    return Draft(
        Kind.TOOL,
        content,
        tool_call_id=call_id,
        name=kind,
        is_error=True if status in ("failed", "incomplete") else None,
    )
