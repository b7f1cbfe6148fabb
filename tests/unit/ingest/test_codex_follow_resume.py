"""A followed Codex rollout read in pieces records what the whole file does: a read that stops right after
a `user_message` prompt event (whose item may still come, or never) resumes before it, so the prompt keeps
the event's time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest import follow
from summarizer.ingest.follow import read_new
from summarizer.ingest.records import IngestRecord

LIMIT = 1 << 20


def _line(kind: str, payload: dict[str, Any], second: int) -> str:
    stamp = f"2025-09-01T10:00:{second:02d}Z"
    return json.dumps({"timestamp": stamp, "type": kind, "payload": payload}) + "\n"


def _assistant(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


ROLLOUT = [
    _line("session_meta", {"id": "s-1", "cli_version": "0.104.0"}, 0),
    _line("response_item", {"type": "message", "role": "developer", "content": "You are Codex."}, 1),
    _line("event_msg", {"type": "user_message", "message": "fix the build"}, 7),  # no user item follows
    _line("event_msg", {"type": "token_count", "info": None}, 8),
    _line("response_item", _assistant("Fixed."), 9),
    _line("event_msg", {"type": "user_message", "message": "and the tests"}, 20),
    _line("response_item", _assistant("They pass."), 25),
]


def _shown(records: list[IngestRecord]) -> list[tuple[Kind, str, str]]:
    return [(r.message.kind, r.message.content, str(r.message.created_at)) for r in records]


def _in_pieces(path: Path, cuts: list[int]) -> list[IngestRecord]:
    """Append the rollout up to each cut (a line count), reading what is new after each append."""
    records: list[IngestRecord] = []
    position = None
    written = 0
    for cut in [*cuts, len(ROLLOUT)]:
        with path.open("a", encoding="utf-8") as out:
            out.write("".join(ROLLOUT[written:cut]))
        written = cut
        read = read_new(path, position, max_bytes=LIMIT)
        assert not read.more
        records.extend(read.records)
        position = read.position
    return records


def test_a_read_that_stops_after_a_prompt_event_resumes_before_it(tmp_path: Path) -> None:
    whole = tmp_path / "rollout-2025-09-01T10-00-00-s-1.jsonl"
    whole.write_text("".join(ROLLOUT), encoding="utf-8")
    expected = _shown(read_new(whole, None, max_bytes=LIMIT).records)
    prompts = [(kind, text, at) for kind, text, at in expected if kind is Kind.USER]
    assert prompts == [
        (Kind.USER, "fix the build", "2025-09-01 10:00:07+00:00"),
        (Kind.USER, "and the tests", "2025-09-01 10:00:20+00:00"),
    ]
    for cuts in ([3], [3, 4], [6], [1, 2, 3, 4, 5, 6]):
        piecewise = tmp_path / f"rollout-2025-09-01T10-00-00-{len(cuts)}-{cuts[0]}.jsonl"
        assert _shown(_in_pieces(piecewise, cuts)) == expected, cuts


def test_a_position_is_never_kept_while_a_prompt_event_waits(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2025-09-01T10-00-00-s-1.jsonl"
    path.write_text("".join(ROLLOUT[:3]), encoding="utf-8")
    read = read_new(path, None, max_bytes=LIMIT)
    assert read.position is not None
    assert read.position.offset == len("".join(ROLLOUT[:2]).encode())  # before the event, not after it
    assert [r.message.kind for r in read.records] == [Kind.SYSTEM]


def test_every_read_moves_on_even_when_a_prompt_waits_longer_than_the_line_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "rollout-2025-09-01T10-00-00-s-1.jsonl"
    path.write_text("".join(ROLLOUT), encoding="utf-8")
    expected = _shown(read_new(path, None, max_bytes=LIMIT).records)
    monkeypatch.setattr(follow, "MAX_LINES_PER_READ", 1)  # the prompt event waits 2 lines for its answer
    records: list[IngestRecord] = []
    position = None
    for _ in range(len(ROLLOUT)):
        read = read_new(path, position, max_bytes=LIMIT)
        records.extend(read.records)
        assert read.position is not None
        moved = position is None or read.position.offset > position.offset
        assert moved or not read.more  # "read again for the rest" never repeats the same read
        position = read.position
        if not read.more:
            break
    assert _shown(records) == expected
