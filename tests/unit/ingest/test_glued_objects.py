"""A JSON Lines line holding several objects written back to back (`{...}{...}`, as Claude Code sometimes
writes a reply with a `summary` or `file-history-snapshot` object glued on after it): every object is read,
by `ingest` and by `watch`, under the same bounds as any line; a line that is not entirely JSON objects is
still a bad line, named by its line number."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.kinds import Kind
from summarizer.ingest import ReadNotes
from summarizer.ingest.detect import detect
from summarizer.ingest.follow import read_new
from summarizer.ingest.jsontext import DocumentError, loads_sequence
from summarizer.ingest.records import IngestRecord
from tests.unit.ingest.helpers import parse

LIMIT = 1 << 20


def _cc(kind: str, content: object, uuid: str, parent: str | None, second: int) -> dict[str, Any]:
    return {
        "type": kind,
        "sessionId": "s",
        "uuid": uuid,
        "parentUuid": parent,
        "isSidechain": False,
        "timestamp": f"2025-01-01T10:00:{second:02d}Z",
        "message": {"role": kind, "content": content},
    }


def _compact(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"))


SNAPSHOT = {"type": "file-history-snapshot", "messageId": "m1", "snapshot": {}, "isSnapshotUpdate": False}
SUMMARY = {"type": "summary", "summary": "Fixing the build", "leafUuid": "a1"}
PROMPT = _cc("user", "fix the build", "u1", None, 1)
REPLY = _cc("assistant", [{"type": "text", "text": "Fixed."}], "a1", "u1", 2)
NEXT = _cc("user", "thanks", "u2", "a1", 3)
GLUED = (
    _compact(SNAPSHOT)
    + "\n"
    + _compact(PROMPT)
    + "\n"
    + _compact(REPLY)
    + _compact(SUMMARY)  # the reply's line, a summary glued on
    + "\n"
    + _compact(NEXT)
    + " "
    + _compact(SNAPSHOT)  # and one with a space between
    + "\n"
)
EXPECTED = [(Kind.USER, "fix the build"), (Kind.ASSISTANT, "Fixed."), (Kind.USER, "thanks")]


def _shown(records: list[IngestRecord]) -> list[tuple[Kind, str]]:
    return [(r.message.kind, r.message.content) for r in records]


def test_ingest_reads_every_object_of_a_line() -> None:
    notes = ReadNotes()
    records = parse(GLUED, "auto", agent=None, strict=False, notes=notes)
    assert notes.detected.startswith("claude-code")
    assert _shown(records) == EXPECTED
    assert (notes.skipped, notes.warnings) == (0, [])
    assert _shown(parse(GLUED, "claude-code", agent=None)) == EXPECTED  # --strict reads it too


def test_watch_reads_every_object_of_a_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(GLUED, encoding="utf-8")
    read = read_new(path, None, max_bytes=LIMIT)
    assert _shown(read.records) == EXPECTED
    assert (read.skipped_lines, read.problem) == (0, None)
    assert read.position is not None
    assert read.position.state["lines"] == 4


def test_other_line_formats_read_glued_objects_too() -> None:
    canonical = '{"kind": "user", "content": "a"}{"kind": "assistant", "content": "b"}\n'
    assert _shown(parse(canonical, "canonical")) == [(Kind.USER, "a"), (Kind.ASSISTANT, "b")]
    openai = '{"role": "user", "content": "a"}{"role": "assistant", "content": "b"}\n'
    assert _shown(parse(openai, "openai")) == [(Kind.USER, "a"), (Kind.ASSISTANT, "b")]


def test_detection_sees_a_signature_on_a_glued_line() -> None:
    found = detect((_compact(REPLY) + _compact(SUMMARY) + "\n").encode(), "s.jsonl")
    assert found.format == "claude-code"


HUGE = "7" * 5000
DEEP = "[" * 150 + "]" * 150
BAD_TAILS = {
    "x": "invalid JSON: Extra data at column",
    "[1]": "expected a JSON object, got array (value 2 of 2 on the line)",
    '{"n": ' + HUGE + "}": "invalid JSON: an integer of more than 4300 digits (5000)",
    '{"deep": ' + DEEP + "}": "invalid JSON: arrays and objects nested deeper than 100 levels",
    '{"cut": ': "invalid JSON: Expecting value",
}


@pytest.mark.parametrize("tail", list(BAD_TAILS))
def test_a_line_that_is_not_entirely_objects_stays_a_bad_line(tail: str, tmp_path: Path) -> None:
    text = _compact(PROMPT) + "\n" + _compact(REPLY) + tail + "\n" + _compact(NEXT) + "\n"
    notes = ReadNotes()
    records = parse(text, "claude-code", agent=None, strict=False, notes=notes)
    assert _shown(records) == [(Kind.USER, "fix the build"), (Kind.USER, "thanks")]
    assert notes.skipped == 1
    assert len(notes.warnings) == 1
    assert notes.warnings[0].startswith(f"chat.jsonl:2: {BAD_TAILS[tail]}"), notes.warnings
    with pytest.raises(InvalidMessage) as caught:
        parse(text, "claude-code", agent=None)
    assert caught.value.where == "chat.jsonl:2"

    path = tmp_path / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    read = read_new(path, None, max_bytes=LIMIT, fmt="claude-code")
    assert _shown(read.records) == [(Kind.USER, "fix the build"), (Kind.USER, "thanks")]
    assert read.skipped_lines == 1
    assert str(read.problem).startswith(f"{path}:2: {BAD_TAILS[tail]}"), read.problem


def test_the_sequence_decoder_keeps_the_bounds_of_a_single_value() -> None:
    assert loads_sequence('{"a": 1}') == [{"a": 1}]
    assert loads_sequence('{"a": 1}{"b": [2]}\r\n') == [{"a": 1}, {"b": [2]}]
    assert loads_sequence(b'{"a": NaN}{"a": 1, "a": 2}', strict=False)[1] == {"a": 2}
    with pytest.raises(DocumentError, match="NaN is not allowed"):
        loads_sequence('{"a": 1}{"n": NaN}')
    with pytest.raises(DocumentError, match="duplicate key 'a'"):
        loads_sequence('{"b": 1}{"a": 1, "a": 2}')
    with pytest.raises(DocumentError, match="nested deeper than 100 levels"):
        loads_sequence('{"a": 1}' + "[" * 100_000 + "]" * 100_000)
    with pytest.raises(DocumentError, match="integer of more than"):
        loads_sequence('{"a": 1}' + HUGE, strict=False)
    with pytest.raises(DocumentError, match="Extra data at column 9"):
        loads_sequence('{"a": 1}xyz')


def test_a_line_of_many_objects_is_read_within_bounds(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(_compact(PROMPT) + "\n" + "{}" * 10_000 + "\n" + _compact(NEXT) + "\n", encoding="utf-8")
    read = read_new(path, None, max_bytes=LIMIT, fmt="claude-code")
    assert _shown(read.records) == [(Kind.USER, "fix the build"), (Kind.USER, "thanks")]
    assert read.skipped_lines == 10_000
    assert read.problem == f"{path}:2: an event needs 'type' as a string, got null (and 9999 more)"
