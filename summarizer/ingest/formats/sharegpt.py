"""`--format sharegpt`: `{"conversations": [{"from", "value"}...]}` items, one agent per conversation."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from summarizer.ingest.containers import Item, Layout, iter_chat_items
from summarizer.ingest.formats.base import LogFormat, Reading
from summarizer.ingest.lines import LineReader
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.sharegpt_format import parse_sharegpt


def _detect(value: Any) -> str | None:
    if isinstance(value, list):
        first = value[0] if value else None
        if isinstance(first, Mapping) and ("from" in first or "value" in first):
            return "an array of ShareGPT turns"
        if isinstance(first, Mapping) and "conversations" in first:
            return "an array of ShareGPT conversations"
        return None
    if isinstance(value, Mapping) and "conversations" in value:
        return "ShareGPT conversations"
    return None


def _read(lines: LineReader, reading: Reading) -> Iterator[IngestRecord]:
    items = iter_chat_items(lines, reading.max_bytes, Layout(array_keys=()), reading.guard.on_bad)
    for position, item in enumerate(items, start=1):

        def parse(i: Item, position: int = position) -> list[IngestRecord]:
            return parse_sharegpt(i.value, reading.agent, position, i.where)

        yield from reading.guard(item, parse)


FORMAT = LogFormat(name="sharegpt", title="ShareGPT", read=_read, detect=_detect)
