"""OpenAI Chat Completions messages, as found in request bodies and chat exports.

Provider messages carry many keys this system has no use for (`refusal`, `annotations`, `audio`...), so
unknown keys are ignored here; the keys that are used are checked as strictly as in the canonical format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.drafts import Draft, finish, reject_repeated_call_ids
from summarizer.ingest.fields import (
    expect_object,
    joined_parts,
    read_extras,
    reject_nul,
    required_role,
    required_str,
)
from summarizer.ingest.jsontext import DocumentError, loads_strict
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord

ROLES: tuple[str, ...] = ("system", "developer", "user", "assistant", "tool", "function")

_TEXT_PARTS = {"text": "text", "refusal": "refusal"}
# Non-text parts keep a trace of themselves: the summary should know an image was shown, not its bytes.
_PLACEHOLDERS: dict[str, str] = {
    "image_url": "[image]",
    "input_audio": "[audio]",
    "file": "[file]",
}


def parse_openai(obj: Mapping[str, Any], default_agent: str | None, where: str) -> list[IngestRecord]:
    reject_nul(obj)
    role = required_role(obj, ROLES)
    extras = read_extras(obj, default_agent)
    return finish(_drafts(role, obj), extras, where)


def _drafts(role: str, obj: Mapping[str, Any]) -> list[Draft]:
    if role in ("system", "developer"):
        return [Draft(Kind.SYSTEM, _text(obj, text_only=True))]
    if role == "user":
        return [Draft(Kind.USER, _text(obj, text_only=False))]
    if role == "assistant":
        return _assistant(obj)
    if role == "tool":
        tool_call_id = required_str(obj, "tool_call_id", allow_empty=False)
        return [Draft(Kind.TOOL_RESULT, _text(obj, text_only=True), tool_call_id=tool_call_id)]
    # The legacy `function` role predates tool call ids, so it cannot be linked to a call: generic `tool`.
    name = required_str(obj, "name", allow_empty=False)
    return [Draft(Kind.TOOL, _text(obj, text_only=True), name=name)]


def _text(obj: Mapping[str, Any], *, text_only: bool, optional: bool = False) -> str:
    """`content` as one string: a string as is, an array of parts joined with newlines."""
    if "content" not in obj or (optional and obj["content"] is None):
        if optional:
            return ""
        raise Problem("missing 'content'")
    return joined_parts(obj["content"], _TEXT_PARTS, {} if text_only else _PLACEHOLDERS)


def _assistant(obj: Mapping[str, Any]) -> list[Draft]:
    drafts: list[Draft] = []
    text = _text(obj, text_only=True, optional=True)
    if not text and isinstance(obj.get("refusal"), str):
        text = obj["refusal"]
    if text:
        drafts.append(Draft(Kind.ASSISTANT, text))
    calls = obj.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list):
            raise Problem(f"tool_calls must be an array, got {json_type(calls)}")
        drafts.extend(_tool_call(call, f"tool_calls[{index}]") for index, call in enumerate(calls))
        reject_repeated_call_ids(drafts)
    if obj.get("function_call") is not None:
        drafts.append(_legacy_function_call(obj["function_call"]))
    return drafts


def _tool_call(value: object, label: str) -> Draft:
    call = expect_object(value, label)
    call_id = required_str(call, "id", allow_empty=False, path=f"{label}.")
    kind = call.get("type", "function")
    if kind == "custom":
        custom = expect_object(call.get("custom"), f"{label}.custom")
        name = required_str(custom, "name", allow_empty=False, path=f"{label}.custom.")
        return Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input=custom.get("input"))
    if kind != "function":
        raise Problem(f"{label}.type {kind!r} is not supported (expected 'function' or 'custom')")
    function = expect_object(call.get("function"), f"{label}.function")
    name = required_str(function, "name", allow_empty=False, path=f"{label}.function.")
    arguments = decode_arguments(function, f"{label}.function.")
    return Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input=arguments)


def _legacy_function_call(value: object) -> Draft:
    call = expect_object(value, "function_call")
    name = required_str(call, "name", allow_empty=False, path="function_call.")
    return Draft(Kind.TOOL, "", name=name, input=decode_arguments(call, "function_call."))


def decode_arguments(function: Mapping[str, Any], path: str) -> Any:
    """The arguments string decoded; models emit "" for calls without arguments, which means {}. Some
    exporters write the arguments already decoded, as an object: that is taken as it is."""
    if isinstance(function.get("arguments"), dict):
        return function["arguments"]
    raw = required_str(function, "arguments", path=path)
    if not raw.strip():
        return {}
    try:
        arguments = loads_strict(raw)
    except DocumentError as exc:
        detail = exc.reason.removeprefix("invalid JSON: ")
        raise Problem(f"{path}arguments is not valid JSON: {detail}") from None
    reject_nul(arguments, f"{path}arguments")  # an escaped NUL only appears once the string is decoded
    return arguments
