"""Claude Code line types the reader does not know are skipped, counted and named once per type per file
(`FILE:LINE` of the first), by `ingest` and by `watch` across its reads; the bookkeeping types Claude Code
writes, and those of the real sessions in the corpora's project-fixtures/claude_code, are passed over without a word."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest import ReadNotes
from summarizer.ingest.claude_code import CLAUDE_CODE_BOOKKEEPING, ClaudeCodeOptions, ClaudeCodeReader
from summarizer.ingest.follow import read_new
from summarizer.ingest.unknown_types import MAX_UNKNOWN_TYPES
from tests.support.corpora import fixture_path
from tests.unit.ingest.helpers import failure, jsonl, parse, read_fixture

FIXTURES = fixture_path("claude_code")
SESSIONS = (
    "after_clear_command.jsonl",
    "compact_after_rewind.jsonl",
    "interrupted_for_tool_use.jsonl",
    "queue_operation_first.jsonl",
    "sidechain_integrated.jsonl",
    "snapshot_first_parallel_calls.jsonl",
    "summary_first_parallel_calls.jsonl",
)
LIMIT = 1 << 20


def _cc(kind: str, content: object, uuid: str, parent: str | None, second: int) -> dict[str, Any]:
    return {
        "type": kind,
        "sessionId": "s",
        "uuid": uuid,
        "parentUuid": parent,
        "timestamp": f"2025-01-01T10:00:{second:02d}Z",
        "message": {"role": kind, "content": content},
    }


def _odd(kind: str, uuid: str) -> dict[str, Any]:
    return {"type": kind, "sessionId": "s", "uuid": uuid, "data": {"x": 1}}


LINES = [
    {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}, "isSnapshotUpdate": False},
    _cc("user", "hello", "u1", None, 1),
    _odd("turn-metrics", "x1"),
    _cc("assistant", [{"type": "text", "text": "hi"}], "a1", "u1", 2),
    _odd("turn-metrics", "x2"),
    _odd("plan-state", "x3"),
    _odd("turn-metrics", "x4"),
    _cc("user", "bye", "u2", "a1", 3),
]
WARNINGS = [
    "chat.jsonl:3: 3 line(s) of unknown type 'turn-metrics' skipped",
    "chat.jsonl:6: 1 line(s) of unknown type 'plan-state' skipped",
]


def test_ingest_names_each_unknown_type_once_with_its_count() -> None:
    notes = ReadNotes()
    records = parse(jsonl(*LINES), "auto", agent=None, strict=False, notes=notes)
    assert [(r.message.kind, r.message.content) for r in records] == [
        (Kind.USER, "hello"),
        (Kind.ASSISTANT, "hi"),
        (Kind.USER, "bye"),
    ]
    assert notes.skipped == 4
    assert notes.warnings == WARNINGS


def test_bookkeeping_types_are_passed_over_without_a_word() -> None:
    lines = [
        {"type": kind, "sessionId": "s", "uuid": f"b{i}"} for i, kind in enumerate(CLAUDE_CODE_BOOKKEEPING)
    ]
    system = {"type": "system", "subtype": "informational", "content": "x", "sessionId": "s", "uuid": "y"}
    notes = ReadNotes()
    parse(
        jsonl(*lines, system, _cc("user", "hello", "u1", None, 1)), "claude-code", strict=False, notes=notes
    )
    assert (notes.skipped, notes.warnings) == (0, [])


@pytest.mark.usefixtures("corpora")
@pytest.mark.parametrize("path", [FIXTURES / name for name in SESSIONS], ids=lambda p: p.name)
def test_no_real_session_line_type_warns(path: Path) -> None:
    types = {json.loads(line)["type"] for line in path.read_text(encoding="utf-8").splitlines() if line}
    _records, notes = read_fixture(path)
    assert not [w for w in notes.warnings if "unknown type" in w], (types, notes.warnings)


def test_watch_names_each_unknown_type_once_across_its_reads(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(jsonl(*LINES[:3]), encoding="utf-8")
    first = read_new(path, None, max_bytes=LIMIT)
    assert first.problem == f"{path}:3: 1 line(s) of unknown type 'turn-metrics' skipped"
    assert first.skipped_lines == 1
    with path.open("a", encoding="utf-8") as out:
        out.write(jsonl(*LINES[3:]))
    second = read_new(path, first.position, max_bytes=LIMIT)
    assert [r.message.content for r in first.records + second.records] == ["hello", "hi", "bye"]
    assert second.problem == f"{path}:6: 1 line(s) of unknown type 'plan-state' skipped"  # turn-metrics: said
    assert second.skipped_lines == 3
    assert second.position is not None
    third = read_new(path, second.position, max_bytes=LIMIT)
    assert third.problem is None


def test_a_flood_of_unknown_types_is_bounded() -> None:
    reader = ClaudeCodeReader(None, ClaudeCodeOptions())
    for i in range(MAX_UNKNOWN_TYPES + 30):
        assert reader.feed(_odd(f"kind-{i}-" + "x" * 200, f"x{i}"), f"s.jsonl:{i + 1}") == []
    assert sum(reader.unknown_types.values()) == MAX_UNKNOWN_TYPES + 30
    report = reader.unknown_report()
    assert len(report) == MAX_UNKNOWN_TYPES + 1
    assert report[-1] == (
        f"s.jsonl:{MAX_UNKNOWN_TYPES + 1}",
        "30 line(s) of unknown type '(further types)' skipped",
    )
    assert all(len(what) < 120 for _where, what in report)
    kept = reader.state()["unknown_types"]
    assert len(kept) == MAX_UNKNOWN_TYPES
    assert len(json.dumps(kept)) < 100 * MAX_UNKNOWN_TYPES


def test_strict_reading_stops_at_a_type_it_does_not_know() -> None:
    caught = failure(jsonl(*LINES), "claude-code", agent=None)
    assert caught.where == "chat.jsonl:3"
    assert "3 line(s) of unknown type 'turn-metrics'" in caught.reason
    assert "--strict" in caught.reason
