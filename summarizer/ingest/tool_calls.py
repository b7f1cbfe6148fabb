"""Tool calls as the agents' logs write them: OpenAI-style `tool_calls` entries (`id`, `function.name`,
`function.arguments` as JSON text), arrays of `{id, name}` requests, and arguments that may be JSON text."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from summarizer.ingest.fields import object_entries
from summarizer.ingest.jsontext import loads_json
from summarizer.ingest.problems import Problem, json_type


def decoded_arguments(arguments: object) -> Any:
    """Arguments written as JSON text, decoded (blank text is `{}`); text that is not JSON is kept as the
    text the model wrote, and any other value as it is."""
    if isinstance(arguments, str):
        try:
            return loads_json(arguments) if arguments.strip() else {}
        except ValueError:
            return arguments
    return arguments


def function_call(call: object, index: int) -> tuple[str, str, Any]:
    """The id, name and decoded arguments of `tool_calls[index]` (`{id, function: {name, arguments}}`)."""
    if not isinstance(call, Mapping):
        raise Problem(f"tool_calls[{index}] must be an object, got {json_type(call)}")
    function = call.get("function")
    call_id = call.get("id")
    if not isinstance(function, Mapping) or not isinstance(call_id, str) or not call_id:
        raise Problem(f"tool_calls[{index}] needs 'id' and 'function'")
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise Problem(f"tool_calls[{index}].function needs 'name' as a string")
    return call_id, name, decoded_arguments(function.get("arguments"))


def named_calls(
    value: Mapping[str, Any], key: str, id_key: str, path: str = ""
) -> Iterator[tuple[Mapping[str, Any], str, str]]:
    """Each entry of the optional array `value[key]` with its id (`id_key`) and `name`, both non-empty
    strings; `path` prefixes the key in reasons."""
    label = f"{path}{key}"
    calls = value.get(key) or []
    if not isinstance(calls, list):
        raise Problem(f"{label} must be an array, got {json_type(calls)}")
    for index, call in object_entries(calls, label):
        call_id, name = call.get(id_key), call.get("name")
        if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
            raise Problem(f"{label}[{index}] needs '{id_key}' and 'name' as strings")
        yield call, call_id, name
