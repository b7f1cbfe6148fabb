"""Reading a file with one of the document readers directly, as `summarizer ingest` reads a document log:
its items in the format's layout, each fed to the reader, the records sequenced (ids derived, calls
paired). A reader's Problem comes back as InvalidMessage at the item's place, as under `--strict`."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from summarizer.domain.errors import InvalidMessage
from summarizer.ingest.containers import Item, Layout, iter_chat_items
from summarizer.ingest.formats.base import Guard, Reading, ReadOptions
from summarizer.ingest.lines import LineReader
from summarizer.ingest.problems import Problem
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.sequencing import ReadNotes, sequence

LIMIT = 1_048_576
Feed = Callable[[Item], list[IngestRecord]]


def read_bytes(
    data: bytes, label: str, layout: Layout, feed: Feed, *, limit: int = LIMIT
) -> tuple[list[IngestRecord], ReadNotes]:
    reader = LineReader(io.BytesIO(data), label)
    return read_items(iter_chat_items(reader, limit, layout), feed)


def read_path(path: Path, layout: Layout, feed: Feed) -> tuple[list[IngestRecord], ReadNotes]:
    return read_bytes(path.read_bytes(), str(path), layout, feed)


def read_items(items: Iterable[Item], feed: Feed) -> tuple[list[IngestRecord], ReadNotes]:
    notes = ReadNotes()
    records = list(sequence(_fed(items, feed), notes, strict_time=False, derive_ids=True))
    return records, notes


def _fed(items: Iterable[Item], feed: Feed) -> Iterator[IngestRecord]:
    for item in items:
        try:
            yield from feed(item)
        except Problem as problem:
            raise InvalidMessage(problem.reason, item.where) from None


def reading(agent: str | None = None, *, strict: bool = False) -> tuple[Reading, ReadNotes]:
    """What a format's whole-file reader reads with, as `summarizer ingest` gives it, and its notes."""
    notes = ReadNotes()
    guard = Guard(strict, notes)
    return Reading(agent=agent, max_bytes=LIMIT, options=ReadOptions(strict=strict), guard=guard), notes


def lines_of(data: bytes, label: str) -> LineReader:
    return LineReader(io.BytesIO(data), label)
