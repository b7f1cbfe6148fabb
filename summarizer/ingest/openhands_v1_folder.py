"""OpenHands V1 conversations saved as a folder: `<conversation>/events/event-NNNNN-<event id>.json`.

The SDK saves each event of a conversation as its own file, numbered in order (five digits at least) and
named after the event's id, beside the conversation's `base_state.json`. Read one file at a time, a
result would come without its call; read here, the folder's event files are one input, in their order,
each item placed at its file (see `openhands_v1` for what each event becomes).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from summarizer.domain.errors import InvalidMessage
from summarizer.ingest.containers import Item, OnBadLine
from summarizer.ingest.jsontext import loads_strict
from summarizer.ingest.lines import over_limit_reason
from summarizer.ingest.openhands_v1 import EVENTS_FOLDER, OpenHandsV1Events, name_unknown
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord

if TYPE_CHECKING:
    from summarizer.ingest.formats.base import Reading

EVENT_FILE = re.compile(r"event-(\d{5,})-([0-9A-Za-z-]{8,})\.json")
"""How the SDK names each saved event: its index, padded to five digits, and its id."""


def read_conversation_folder(folder: Path, reading: Reading) -> Iterator[IngestRecord]:
    """Every record of a saved conversation folder (or its `events/` folder), its event files in order,
    as one input: each call is paired with its result across the files."""
    events = OpenHandsV1Events(
        reading.agent, str(folder / EVENTS_FOLDER if folder.name != EVENTS_FOLDER else folder)
    )
    for item in conversation_items(folder, reading.max_bytes, reading.guard.on_bad):
        yield from reading.guard(item, events.feed)
    name_unknown(events, reading)


def is_conversation_folder(path: Path) -> bool:
    """A saved conversation (its folder) or its `events/` folder: a folder holding event files."""
    folder = path / EVENTS_FOLDER if (path / EVENTS_FOLDER).is_dir() else path
    try:
        return folder.is_dir() and any(EVENT_FILE.fullmatch(p.name) for p in folder.iterdir())
    except OSError:
        return False


def conversation_items(path: Path, limit: int, on_bad: OnBadLine | None = None) -> Iterator[Item]:
    """The events of a saved conversation folder (or of its `events/` folder) in their saved order, each
    an item at its file. A file that cannot be read or is not one JSON object is an InvalidMessage naming
    it: raised, or, with `on_bad`, told to it and passed over."""
    folder = path / EVENTS_FOLDER if (path / EVENTS_FOLDER).is_dir() else path
    try:
        names = [(found, p) for p in folder.iterdir() if (found := EVENT_FILE.fullmatch(p.name))]
    except OSError as exc:
        raise InvalidMessage(f"cannot list the events: {exc.strerror or exc}", str(folder)) from None
    files = sorted(((int(found.group(1)), p) for found, p in names), key=lambda pair: pair[0])
    for _, file in files:
        try:
            yield _event_file(file, limit)
        except InvalidMessage as exc:
            if on_bad is None:
                raise
            on_bad(exc)


def _event_file(file: Path, limit: int) -> Item:
    where = str(file)
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise InvalidMessage(f"cannot read the event: {exc.strerror or exc}", where) from None
    if len(data) > limit:
        raise InvalidMessage(over_limit_reason(len(data), limit), where)
    try:
        value = loads_strict(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InvalidMessage("not UTF-8 text", where) from None
    except Problem as exc:
        raise InvalidMessage(exc.reason, where) from None
    if not isinstance(value, dict):
        raise InvalidMessage(f"expected one event (a JSON object), got {json_type(value)}", where)
    return Item(value, where)
