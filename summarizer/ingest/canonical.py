"""The canonical format: one JSON object per line, field names matching `NewMessage`.

It is the format hosts write by hand or from their own logs, so it is strict: an unknown key is an error
(a misspelt `contnet` would otherwise lose the content silently) unless it starts with `x_`, and tool
fields are refused on kinds that cannot carry them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from summarizer.domain.kinds import Kind, parse_kind
from summarizer.ingest.drafts import Draft, finish
from summarizer.ingest.fields import (
    EXTRA_KEYS,
    optional_bool,
    read_extras,
    reject_nul,
    required_str,
)
from summarizer.ingest.problems import Problem
from summarizer.ingest.records import IngestRecord

KEYS: tuple[str, ...] = ("kind", "content", "tool_call_id", "name", "input", "is_error", *EXTRA_KEYS)
IGNORED_PREFIX = "x_"

# Which kinds may carry each tool field; `tool` is the generic legacy kind and may carry any of them.
_TOOL_FIELD_KINDS: dict[str, frozenset[Kind]] = {
    "tool_call_id": frozenset({Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.TOOL}),
    "name": frozenset({Kind.TOOL_CALL, Kind.TOOL}),
    "input": frozenset({Kind.TOOL_CALL, Kind.TOOL}),
    "is_error": frozenset({Kind.TOOL_RESULT, Kind.TOOL}),
}


def parse_canonical(obj: Mapping[str, Any], default_agent: str | None, where: str) -> IngestRecord:
    reject_nul(obj)
    _reject_unknown_keys(obj)
    kind = _read_kind(obj)
    _reject_misplaced_tool_fields(obj, kind)
    draft = Draft(
        kind=kind,
        content=_read_content(obj, kind),
        tool_call_id=_read_tool_call_id(obj, kind),
        name=_read_name(obj, kind),
        input=obj.get("input"),
        is_error=optional_bool(obj, "is_error"),
    )
    (record,) = finish([draft], read_extras(obj, default_agent), where)
    return record


def _reject_unknown_keys(obj: Mapping[str, Any]) -> None:
    for key in obj:
        if key not in KEYS and not key.startswith(IGNORED_PREFIX):
            expected = ", ".join(KEYS)
            raise Problem(f"unknown key {key!r} (expected: {expected}; prefix your own keys with 'x_')")


def _read_kind(obj: Mapping[str, Any]) -> Kind:
    value = required_str(obj, "kind")
    try:
        return parse_kind(value)
    except ValueError as exc:
        raise Problem(str(exc)) from None


def _reject_misplaced_tool_fields(obj: Mapping[str, Any], kind: Kind) -> None:
    for key, kinds in _TOOL_FIELD_KINDS.items():
        if key in obj and kind not in kinds:
            allowed = ", ".join(sorted(k.value for k in kinds))
            raise Problem(f"{key!r} is not allowed on a {kind.value} message (only on: {allowed})")


def _read_content(obj: Mapping[str, Any], kind: Kind) -> str:
    if kind is Kind.TOOL_CALL and "content" not in obj:
        return ""
    return required_str(obj, "content")


def _read_tool_call_id(obj: Mapping[str, Any], kind: Kind) -> str | None:
    if "tool_call_id" not in obj:
        if kind in (Kind.TOOL_CALL, Kind.TOOL_RESULT):
            raise Problem(f"a {kind.value} message needs 'tool_call_id'")
        return None
    return required_str(obj, "tool_call_id", allow_empty=False)


def _read_name(obj: Mapping[str, Any], kind: Kind) -> str | None:
    if "name" not in obj:
        if kind is Kind.TOOL_CALL:
            raise Problem("a tool_call message needs 'name' (the tool's name)")
        return None
    return required_str(obj, "name", allow_empty=False)
