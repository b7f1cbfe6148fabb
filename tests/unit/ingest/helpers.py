"""Shared helpers: parse in-memory text as if it were a file called chat.jsonl.

`parse` and `failure` read strictly (the first unreadable line or item is an error, results stay results),
so a parser's own rules are what a test sees; `strict=False` reads as `summarizer ingest` does."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.kinds import Kind
from summarizer.ingest import IngestRecord, ReadNotes, ReadOptions, iter_stream_records

LABEL = "chat.jsonl"
LIMIT = 1_048_576


def parse(
    text: str | bytes,
    fmt: str = "canonical",
    *,
    agent: str | None = "a",
    limit: int = LIMIT,
    strict: bool = True,
    notes: ReadNotes | None = None,
) -> list[IngestRecord]:
    data = text.encode("utf-8") if isinstance(text, str) else text
    options = ReadOptions(strict=strict)
    return list(iter_stream_records(io.BytesIO(data), LABEL, fmt, agent, limit, options, notes))


def failure(
    text: str | bytes, fmt: str = "canonical", *, agent: str | None = "a", limit: int = LIMIT
) -> InvalidMessage:
    with pytest.raises(InvalidMessage) as caught:
        parse(text, fmt, agent=agent, limit=limit, strict=True)
    return caught.value


def jsonl(*objects: Any) -> str:
    return "".join(json.dumps(obj) + "\n" for obj in objects)


def canonical_line(**fields: Any) -> str:
    message: dict[str, Any] = {"kind": "user", "content": "hello"}
    message.update(fields)
    return jsonl(message)


def read_fixture(path: Path) -> tuple[list[IngestRecord], ReadNotes]:
    """A fixture file's records read as `summarizer ingest` reads it (format detected), with the notes."""
    notes = ReadNotes()
    with path.open("rb") as stream:
        records = list(iter_stream_records(stream, path.name, "auto", None, 1_000_000, notes=notes))
    return records, notes


def kind_counts(records: list[IngestRecord]) -> Counter[Kind]:
    return Counter(r.message.kind for r in records)


def assert_calls_answered_in_order(records: list[IngestRecord], notes: ReadNotes) -> None:
    """Every tool call is followed by its own result, none is left unpaired, no timestamp was clamped, and
    every message has a time and a host id."""
    calls = [i for i, r in enumerate(records) if r.message.kind is Kind.TOOL_CALL]
    for index in calls:
        call, result = records[index].message, records[index + 1].message
        assert (result.kind, result.tool_call_id) == (Kind.TOOL_RESULT, call.tool_call_id)
    assert notes.unpaired_calls == 0
    assert notes.clamped_times == 0
    assert all(r.message.created_at is not None and r.message.host_id for r in records)
