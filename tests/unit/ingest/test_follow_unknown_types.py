"""`watch` reads a Codex rollout and a Copilot transcript as it does a Claude Code transcript: an item,
event or (Codex) line of a type the reader does not know is skipped and counted, and each type is named once per file
(`FILE:LINE` of the first, with how many the read skipped), not again in a later read; `ingest` names them
with the same words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.ingest import ReadNotes
from summarizer.ingest.codex import CodexRollout
from summarizer.ingest.follow import read_new
from summarizer.ingest.unknown_types import MAX_UNKNOWN_TYPES, OTHER_UNKNOWN_TYPES
from tests.unit.ingest.helpers import LABEL, parse

LIMIT = 1 << 20


def _codex(kind: str, payload: dict[str, Any], second: int) -> str:
    return (
        json.dumps({"timestamp": f"2025-09-01T10:00:{second:02d}Z", "type": kind, "payload": payload}) + "\n"
    )


def _said(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


CODEX = [
    _codex("session_meta", {"id": "s-1", "cli_version": "0.130.0"}, 0),
    _codex("response_item", _said("one"), 1),
    _codex("response_item", {"type": "web_search_preview", "query": "x"}, 2),
    _codex("response_item", _said("two"), 3),
    _codex("response_item", {"type": "web_search_preview", "query": "y"}, 4),
    _codex("response_item", {"type": "agent_handoff", "id": "h1"}, 5),
    _codex("response_item", _said("three"), 6),
]


def _copilot(kind: str, data: dict[str, Any], n: int) -> str:
    line = {"type": kind, "data": data, "id": f"e{n}", "timestamp": f"2026-05-07T06:18:{n:02d}.000Z"}
    return json.dumps(line | {"parentId": None}) + "\n"


COPILOT = [
    _copilot("session.start", {"sessionId": "c-1", "producer": "copilot-agent", "copilotVersion": "1.0"}, 1),
    _copilot("user.message", {"content": "list the files", "attachments": []}, 2),
    _copilot("session.brand_new_thing", {"x": 1}, 3),
    _copilot("assistant.message", {"content": "done", "toolRequests": []}, 4),
    _copilot("session.brand_new_thing", {"x": 2}, 5),
    _copilot("session.other_new_thing", {"x": 3}, 6),
    _copilot("user.message", {"content": "thanks", "attachments": []}, 7),
]

CASES = {
    "codex": (CODEX, "rollout-2025-09-01T10-00-00-s-1.jsonl", "response item(s)"),
    "copilot": (COPILOT, "events.jsonl", "event(s)"),
}
NEW_TYPES = {
    "codex": ("web_search_preview", "agent_handoff"),
    "copilot": ("session.brand_new_thing", "session.other_new_thing"),
}


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_watch_counts_and_names_each_unknown_type_once_across_its_reads(fmt: str, tmp_path: Path) -> None:
    lines, name, noun = CASES[fmt]
    first_type, second_type = NEW_TYPES[fmt]
    path = tmp_path / name
    path.write_text("".join(lines[:3]), encoding="utf-8")
    first = read_new(path, None, max_bytes=LIMIT)
    assert first.position is not None
    assert first.position.format == fmt
    assert first.problem == f"{path}:3: 1 {noun} of unknown type {first_type!r} skipped"
    assert first.skipped_lines == 1

    with path.open("a", encoding="utf-8") as out:
        out.write("".join(lines[3:]))
    second = read_new(path, first.position, max_bytes=LIMIT)
    # The first type was named in the first read; the second is named now, at its first line.
    assert second.problem == f"{path}:6: 1 {noun} of unknown type {second_type!r} skipped"
    assert second.skipped_lines == 2
    assert len(first.records) + len(second.records) == 3

    with path.open("a", encoding="utf-8") as out:
        out.write(lines[4] + lines[5])
    third = read_new(path, second.position, max_bytes=LIMIT)
    assert third.problem is None  # both types already named in this file
    assert third.skipped_lines == 2


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_ingest_names_the_same_types_with_the_same_words(fmt: str) -> None:
    lines, _name, noun = CASES[fmt]
    first_type, second_type = NEW_TYPES[fmt]
    notes = ReadNotes()
    parse("".join(lines), fmt, agent="a", strict=False, notes=notes)
    assert notes.skipped == 3
    assert sorted(notes.warnings) == sorted(
        [
            f"{LABEL}: 2 {noun} of unknown type {first_type!r} skipped",
            f"{LABEL}: 1 {noun} of unknown type {second_type!r} skipped",
        ]
    )


CODEX_LINES = [
    CODEX[0],
    CODEX[1],
    _codex("agent_state", {"x": 1}, 2),
    CODEX[3],
    _codex("agent_state", {"x": 2}, 4),
    _codex("turn_summary", {"x": 3}, 5),
    CODEX[6],
]
"""A rollout with lines of top-level types this version does not know (a later Codex's)."""


def test_watch_names_each_unknown_codex_line_type_once_across_its_reads(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2025-09-01T10-00-00-s-1.jsonl"
    path.write_text("".join(CODEX_LINES[:3]), encoding="utf-8")
    first = read_new(path, None, max_bytes=LIMIT)
    assert first.position is not None
    assert first.problem == f"{path}:3: 1 line(s) of unknown type 'agent_state' skipped"
    assert first.skipped_lines == 1

    with path.open("a", encoding="utf-8") as out:
        out.write("".join(CODEX_LINES[3:]))
    second = read_new(path, first.position, max_bytes=LIMIT)
    assert second.problem == f"{path}:6: 1 line(s) of unknown type 'turn_summary' skipped"
    assert second.skipped_lines == 2
    assert len(first.records) + len(second.records) == 3

    with path.open("a", encoding="utf-8") as out:
        out.write(CODEX_LINES[4] + CODEX_LINES[5] + CODEX[2])  # and an unknown item type: named apart
    third = read_new(path, second.position, max_bytes=LIMIT)
    assert third.problem == f"{path}:10: 1 response item(s) of unknown type 'web_search_preview' skipped"
    assert third.skipped_lines == 3


def test_ingest_names_unknown_codex_line_types_with_the_same_words() -> None:
    notes = ReadNotes()
    parse("".join(CODEX_LINES), "codex", agent="a", strict=False, notes=notes)
    assert notes.skipped == 3
    assert sorted(notes.warnings) == [
        f"{LABEL}: 1 line(s) of unknown type 'turn_summary' skipped",
        f"{LABEL}: 2 line(s) of unknown type 'agent_state' skipped",
    ]


def test_ingest_strict_stops_at_an_unknown_codex_line_type() -> None:
    with pytest.raises(InvalidMessage, match="line\\(s\\) of unknown type 'agent_state'"):
        parse("".join(CODEX_LINES), "codex", agent="a", strict=True)


def test_unknown_codex_line_types_past_the_limit_are_counted_together() -> None:
    rollout = CodexRollout("a")
    for n in range(MAX_UNKNOWN_TYPES + 5):
        rollout.feed({"type": f"kind_{n}", "payload": {}}, f"{LABEL}:{n + 1}")
    assert len(rollout.unknown_lines) == MAX_UNKNOWN_TYPES + 1
    assert rollout.unknown_lines[OTHER_UNKNOWN_TYPES] == 5
    assert sum(rollout.unknown_lines.values()) == MAX_UNKNOWN_TYPES + 5
