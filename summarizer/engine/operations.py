"""The operations contract: the LLM answers with edits to the structured summary, never with Markdown.

add:     new items, each citing the batch exchanges it covers, with text and importance.
merge:   two or more shown items become one new text.
shorten: one shown item gets a shorter text.
drop:    batch exchanges (or, on the full rung, shown items) are left out on purpose, with a short reason
         that is recorded as the reason they were forgotten.

The answer arrives as the input of a forced tool call. `parse_operations` checks its shape against the same
schema the tool declares and turns it into typed values; what the values may refer to is the gate's job
(`validation`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from summarizer.engine.errors import AnswerRejected
from summarizer.engine.ladder import UpdatePath
from summarizer.engine.model import Importance

TOOL_NAME = "apply_summary_operations"
TOOL_DESCRIPTION = (
    "Record how the running summary changes: add items for the new exchanges, and (when allowed) merge, "
    "shorten or drop existing items. Every new exchange must be covered by an added item or dropped."
)
MAX_REASON_CHARS = 300
IMPORTANCE_VALUES: tuple[str, ...] = tuple(i.value for i in Importance)


@dataclass(frozen=True, slots=True)
class AddOp:
    exchange_ids: tuple[int, ...]
    text: str
    importance: Importance


@dataclass(frozen=True, slots=True)
class MergeOp:
    item_ids: tuple[str, ...]
    text: str
    importance: Importance


@dataclass(frozen=True, slots=True)
class ShortenOp:
    item_id: str
    text: str


@dataclass(frozen=True, slots=True)
class DropOp:
    item_ids: tuple[str, ...]
    exchange_ids: tuple[int, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class Operations:
    add: tuple[AddOp, ...] = ()
    merge: tuple[MergeOp, ...] = ()
    shorten: tuple[ShortenOp, ...] = ()
    drop: tuple[DropOp, ...] = ()

    def to_tool_input(self) -> dict[str, Any]:
        """The tool input that parses back into these operations (used by the fakes and the offline LLM)."""
        return {
            "add": [
                {"exchange_ids": list(op.exchange_ids), "text": op.text, "importance": op.importance.value}
                for op in self.add
            ],
            "merge": [
                {"item_ids": list(op.item_ids), "text": op.text, "importance": op.importance.value}
                for op in self.merge
            ],
            "shorten": [{"item_id": op.item_id, "text": op.text} for op in self.shorten],
            "drop": [
                {"item_ids": list(op.item_ids), "exchange_ids": list(op.exchange_ids), "reason": op.reason}
                for op in self.drop
            ],
        }


def _text_schema(max_chars: int) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": max_chars}


def operations_schema(
    path: UpdatePath,
    max_item_chars: int,
    exchange_ids: Sequence[int] = (),
    item_ids: Sequence[str] = (),
) -> dict[str, Any]:
    """The tool's input schema. The append path offers no item edits, since it shows no items.

    Constrained output: with the batch's `exchange_ids` and the shown `item_ids`, every id in the schema is
    an enum of exactly those, so a server that turns the schema into a grammar (llama.cpp, vLLM, Ollama)
    cannot even emit an id that does not exist. The gate still checks every answer: constrained output is
    help, not trust."""
    importance = {"type": "string", "enum": list(IMPORTANCE_VALUES)}
    exchange_id: dict[str, Any] = {"type": "integer"}
    if exchange_ids:
        exchange_id["enum"] = sorted(set(exchange_ids))
    item_id: dict[str, Any] = {"type": "string"}
    if item_ids:
        item_id["enum"] = sorted(set(item_ids))
    int_list = {"type": "array", "items": exchange_id}
    str_list = {"type": "array", "items": item_id}
    add = _array_of(
        {
            "exchange_ids": {**int_list, "minItems": 1},
            "text": _text_schema(max_item_chars),
            "importance": importance,
        },
        ["exchange_ids", "text", "importance"],
    )
    reason = {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_REASON_CHARS,
        "description": "A short reason why this is not worth keeping; it is recorded.",
    }
    drop_props: dict[str, Any] = {"exchange_ids": int_list, "reason": reason}
    properties: dict[str, Any] = {"add": add}
    if path is UpdatePath.FULL:
        drop_props["item_ids"] = str_list
    if path in (UpdatePath.MERGE, UpdatePath.FULL):
        properties["merge"] = _array_of(
            {
                "item_ids": {**str_list, "minItems": 2},
                "text": _text_schema(max_item_chars),
                "importance": importance,
            },
            ["item_ids", "text", "importance"],
        )
        properties["shorten"] = _array_of(
            {"item_id": item_id, "text": _text_schema(max_item_chars)}, ["item_id", "text"]
        )
    properties["drop"] = _array_of(drop_props, ["reason"])
    return _closed_object(properties, ["add"])


def _closed_object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """An object schema with these properties and no others."""
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _array_of(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """An array schema whose items are objects with these properties and no others."""
    return {"type": "array", "items": _closed_object(properties, required)}


class _Reader:
    """Type checks with a path in every complaint, e.g. "add[2].exchange_ids[0]: expected an integer"."""

    def obj(self, value: object, where: str, required: set[str], optional: set[str]) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise AnswerRejected(f"{where}: expected an object, got {type(value).__name__}")
        keys = set(value.keys())
        missing = required - keys
        if missing:
            raise AnswerRejected(f"{where}: missing {', '.join(sorted(missing))}")
        unknown = keys - required - optional
        if unknown:
            raise AnswerRejected(f"{where}: unknown field {', '.join(sorted(map(str, unknown)))}")
        return value

    def array(self, value: object, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise AnswerRejected(f"{where}: expected an array, got {type(value).__name__}")
        return value

    def integer(self, value: object, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise AnswerRejected(f"{where}: expected an integer, got {value!r}")
        return value

    def string(self, value: object, where: str) -> str:
        if not isinstance(value, str):
            raise AnswerRejected(f"{where}: expected a string, got {type(value).__name__}")
        return value

    def ints(self, value: object, where: str) -> tuple[int, ...]:
        return tuple(self.integer(x, f"{where}[{i}]") for i, x in enumerate(self.array(value, where)))

    def strings(self, value: object, where: str) -> tuple[str, ...]:
        return tuple(self.string(x, f"{where}[{i}]") for i, x in enumerate(self.array(value, where)))

    def importance(self, value: object, where: str) -> Importance:
        if value not in IMPORTANCE_VALUES:
            raise AnswerRejected(f"{where}: expected one of {', '.join(IMPORTANCE_VALUES)}, got {value!r}")
        return Importance(str(value))


def parse_operations(raw: object) -> Operations:
    """Typed operations from a tool input; AnswerRejected naming the first thing out of shape."""
    r = _Reader()
    top = r.obj(raw, "answer", set(), {"add", "merge", "shorten", "drop"})
    adds = []
    for i, entry in enumerate(r.array(top.get("add", []), "add")):
        where = f"add[{i}]"
        e = r.obj(entry, where, {"exchange_ids", "text", "importance"}, set())
        ids = r.ints(e["exchange_ids"], f"{where}.exchange_ids")
        if not ids:
            raise AnswerRejected(f"{where}.exchange_ids: an added item must cite at least one exchange")
        adds.append(AddOp(ids, r.string(e["text"], f"{where}.text"), r.importance(e["importance"], where)))
    merges = []
    for i, entry in enumerate(r.array(top.get("merge", []), "merge")):
        where = f"merge[{i}]"
        e = r.obj(entry, where, {"item_ids", "text", "importance"}, set())
        ids_s = r.strings(e["item_ids"], f"{where}.item_ids")
        if len(ids_s) < 2:
            raise AnswerRejected(f"{where}.item_ids: a merge needs at least two items")
        merges.append(
            MergeOp(ids_s, r.string(e["text"], f"{where}.text"), r.importance(e["importance"], where))
        )
    shortens = []
    for i, entry in enumerate(r.array(top.get("shorten", []), "shorten")):
        where = f"shorten[{i}]"
        e = r.obj(entry, where, {"item_id", "text"}, set())
        shortens.append(
            ShortenOp(r.string(e["item_id"], f"{where}.item_id"), r.string(e["text"], f"{where}.text"))
        )
    drops = []
    for i, entry in enumerate(r.array(top.get("drop", []), "drop")):
        where = f"drop[{i}]"
        e = r.obj(entry, where, {"reason"}, {"item_ids", "exchange_ids"})
        item_ids = r.strings(e.get("item_ids", []), f"{where}.item_ids")
        exchange_ids = r.ints(e.get("exchange_ids", []), f"{where}.exchange_ids")
        if not item_ids and not exchange_ids:
            raise AnswerRejected(f"{where}: names no item and no exchange")
        drops.append(DropOp(item_ids, exchange_ids, r.string(e["reason"], f"{where}.reason")))
    return Operations(tuple(adds), tuple(merges), tuple(shortens), tuple(drops))
