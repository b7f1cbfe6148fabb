"""How JSON values are laid out in an input: one per line, or one document holding a list of messages.

The canonical format is always JSON Lines. Provider exports come either way: JSONL of message objects, an
array of messages, or a request body with a `messages` array. The layout is decided from the first
non-blank line, so JSONL inputs are still read lazily and only whole documents are read at once. A JSON
Lines line that holds several objects written back to back (`{...}{...}`) gives each of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from summarizer.domain.errors import InvalidMessage
from summarizer.ingest.jsontext import DocumentError, compact_size, loads_sequence, loads_strict
from summarizer.ingest.lines import JSON_WHITESPACE, Line, LineReader, over_limit_reason
from summarizer.ingest.problems import Problem, json_type


@dataclass(frozen=True, slots=True)
class Item:
    """One decoded JSON object and where it came from. `system` marks a top-level system prompt."""

    value: dict[str, Any]
    where: str
    system: bool = False


OnBadLine = Callable[[InvalidMessage], None]
"""Told of a line that cannot be read (not JSON, not an object, over the limit, bad UTF-8), which is then
skipped; without one, such a line is an error."""


def iter_jsonl(reader: LineReader, limit: int, on_bad: OnBadLine | None = None) -> Iterator[Item]:
    """One object per non-blank line, each checked against the size limit before it is decoded."""
    while True:
        try:
            line = reader.read_line(limit)
        except InvalidMessage as exc:  # bad bytes: the line is consumed, the next one can be read
            if on_bad is None:
                raise
            on_bad(exc)
            continue
        if line is None:
            return
        if line.blank:
            continue
        try:
            items = _line_items(reader, line, limit)
        except InvalidMessage as exc:
            if reader.unterminated and line.text is not None:  # a log still being written: wait for it
                reader.partial_lines += 1
                return
            if on_bad is None:
                raise
            on_bad(exc)
            continue
        yield from items


@dataclass(frozen=True, slots=True)
class Layout:
    """How a format wraps its items in a whole document: the keys that may hold the item array (the first
    present wins) and the key of a top-level system prompt, if the format has one."""

    array_keys: tuple[str, ...] = ("messages",)
    system_key: str | None = None
    string_input: bool = False  # a string under the array key is one user message (Responses `input`)


CHAT = Layout()


def iter_chat_items(
    reader: LineReader, limit: int, layout: Layout = CHAT, on_bad: OnBadLine | None = None
) -> Iterator[Item]:
    """Items of a provider export in whichever layout it uses: JSON Lines, an array, or a document whose
    array key holds the items; the layout's system key becomes a leading system item. `on_bad` is told of
    a JSON Lines line, or an item of a document, that cannot be read (the document itself must parse)."""
    first = _first_non_blank(reader)
    if first is None or first.text is None:
        return
    if _is_document(first.text, layout):
        yield from _document_items(reader, first, limit, layout, on_bad)
        return
    try:
        items = _line_items(reader, first, limit)
    except InvalidMessage as exc:
        if on_bad is None:
            raise
        on_bad(exc)
        items = []
    yield from items
    yield from iter_jsonl(reader, limit, on_bad)


def _first_non_blank(reader: LineReader) -> Line | None:
    while (line := reader.read_line(None)) is not None:
        if not line.blank:
            return line
    return None


def _is_document(text: str, layout: Layout) -> bool:
    """A line opening an array, a request body holding the item array, or an object that continues on
    later lines."""
    stripped = text.strip(JSON_WHITESPACE)
    if stripped.startswith("["):
        return True
    if not stripped.startswith("{"):
        return False
    try:
        value = loads_strict(text)
    except DocumentError as exc:
        return exc.offset is not None and exc.offset >= len(text.rstrip(JSON_WHITESPACE))
    if not isinstance(value, dict) or "role" in value or "type" in value:
        return False
    return any(key in value for key in layout.array_keys)


def _line_items(reader: LineReader, line: Line, limit: int) -> list[Item]:
    """The objects of a line (`line_objects`), all with the line's position."""
    where = reader.where(line.number)
    if line.text is None or line.size > limit:
        raise InvalidMessage(over_limit_reason(line.size, limit), where)
    try:
        return [Item(value, where) for value in line_objects(line.text)]
    except Problem as exc:
        raise InvalidMessage(exc.reason, where) from None


def line_objects(text: str | bytes) -> list[dict[str, Any]]:
    """The object on a JSON Lines line, or each of the objects written back to back on it (`{...}{...}`:
    Claude Code sometimes glues a bookkeeping object onto a reply's line), for `ingest` and `watch` alike.
    A line that is not entirely JSON objects raises Problem saying why (bytes that are not UTF-8 too)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise Problem("not UTF-8 text") from None
    values = loads_sequence(text)
    for index, value in enumerate(values):
        if not isinstance(value, dict):
            which = f" (value {index + 1} of {len(values)} on the line)" if len(values) > 1 else ""
            raise Problem(f"expected a JSON object, got {json_type(value)}{which}")
    return values


def _document_items(
    reader: LineReader, first: Line, limit: int, layout: Layout, on_bad: OnBadLine | None
) -> Iterator[Item]:
    assert first.text is not None
    _, rest = reader.read_rest()
    try:
        document = loads_strict(first.text + "\n" + rest)
    except DocumentError as exc:
        raise InvalidMessage(exc.reason, reader.where(first.number + exc.line - 1)) from None
    origin = reader.where(first.number)
    if isinstance(document, list):
        messages, prefix = document, ""
    elif isinstance(document, dict) and (not layout.array_keys or _single_message(document, layout)):
        messages, prefix = [document], ""
    elif isinstance(document, dict):
        messages, prefix = _messages_of(document, origin, layout)
        key = layout.system_key
        if key is not None and document.get(key) is not None:
            yield Item({"system": document[key]}, f"{origin} {key}", system=True)
    else:
        layouts = "JSON Lines, an array of messages or an object with 'messages'"
        raise InvalidMessage(f"expected {layouts}, got {json_type(document)}", origin)
    label = f"{origin} {prefix}" if prefix else f"{origin} "
    yield from listed_items(messages, label, limit, on_bad)


def listed_items(values: list[Any], label: str, limit: int, on_bad: OnBadLine | None) -> Iterator[Item]:
    """Each of `values` as an item `LABEL[N]`; one that is not an object or is over `limit` is told to
    `on_bad` and passed over (raised without one)."""
    for index, value in enumerate(values):
        where = f"{label}[{index}]"
        problem = None
        if not isinstance(value, dict):
            problem = InvalidMessage(f"expected a JSON object, got {json_type(value)}", where)
        elif (size := compact_size(value)) > limit:
            problem = InvalidMessage(over_limit_reason(size, limit), where)
        if problem is None:
            yield Item(value, where)
        elif on_bad is None:
            raise problem
        else:
            on_bad(problem)


def _single_message(document: dict[str, Any], layout: Layout) -> bool:
    """One message written as a whole document (an API response printed over several lines)."""
    return "role" in document and "content" in document and not any(k in document for k in layout.array_keys)


def _messages_of(document: dict[str, Any], origin: str, layout: Layout) -> tuple[list[Any], str]:
    key = next((k for k in layout.array_keys if k in document), None)
    if key is None:
        names = " or ".join(f"'{k}'" for k in layout.array_keys)
        raise InvalidMessage(f"the JSON document has no {names} array", origin)
    messages = document[key]
    if layout.string_input and isinstance(messages, str):
        return [{"type": "message", "role": "user", "content": messages}], key
    if not isinstance(messages, list):
        raise InvalidMessage(f"'{key}' must be an array, got {json_type(messages)}", origin)
    return messages, key
