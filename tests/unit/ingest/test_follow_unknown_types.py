"""`watch` reads a Codex rollout and a Copilot transcript as it does a Claude Code transcript: an item or
event of a type the reader does not know is skipped and counted, and each type is named once per file
(`FILE:LINE` of the first, with how many the read skipped), not again in a later read; `ingest` names them
with the same words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from summarizer.ingest import ReadNotes
from summarizer.ingest.follow import read_new
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
