"""`ingest` and `watch` read a JSON Lines line by the same rules (one function): the objects on it, two
written back to back included; a line that is not JSON objects (NaN, a repeated key, a number too large to
store, an array, bytes that are not UTF-8) is skipped with the same reason by both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from summarizer.ingest import ReadNotes
from summarizer.ingest.follow import read_new
from tests.unit.ingest.helpers import LABEL, parse

LIMIT = 1 << 20


def _user(uuid: str, text: str, second: int) -> bytes:
    line = {
        "type": "user",
        "sessionId": "s",
        "uuid": uuid,
        "parentUuid": None,
        "timestamp": f"2025-01-01T10:00:{second:02d}Z",
        "message": {"role": "user", "content": text},
    }
    return json.dumps(line).encode()


BAD_LINES = {
    "nan": (b'{"type": "user", "n": NaN}', "NaN is not allowed"),
    "repeated key": (b'{"type": "user", "type": "assistant"}', "duplicate key 'type'"),
    "too large": (b'{"type": "user", "n": 1e400}', "too large to store"),
    "array": (b"[1, 2]", "expected a JSON object, got array"),
    "not utf-8": (b'{"type": "user", "x": "\xff"}', ""),
}


@pytest.mark.parametrize("name", sorted(BAD_LINES))
def test_a_bad_line_is_skipped_by_ingest_and_watch_for_the_same_reason(name: str, tmp_path: Path) -> None:
    bad, reason = BAD_LINES[name]
    data = (
        b"\n".join([_user("u1", "hello", 1), bad, _user("u2", "again", 2) + _user("u3", "glued", 3)]) + b"\n"
    )
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    read = read_new(path, None, max_bytes=LIMIT)
    notes = ReadNotes()
    records = parse(data, "claude-code", agent="a", strict=False, notes=notes)
    assert [r.message.content for r in read.records] == ["hello", "again", "glued"]
    assert [r.message.content for r in records] == ["hello", "again", "glued"]
    assert read.skipped_lines == notes.skipped == 1
    assert read.problem is not None
    assert read.problem.startswith(f"{path}:2: ")
    assert notes.warnings[0].startswith(f"{LABEL}:2: ")
    if reason:
        assert reason in read.problem
        assert reason in notes.warnings[0]
