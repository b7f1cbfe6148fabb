"""Codex CLI rollouts: the real sanitized files of Codex Desktop 0.104, and the rules of the format."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest import ReadNotes, read_records
from tests.support.corpora import fixture_path
from tests.unit.ingest.helpers import failure, parse

FIXTURES = fixture_path("codex")
BIG = "rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl"
SMALL = "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"


def _file_counts(path: Path) -> Counter[str]:
    """What the file itself holds, counted straight from its lines."""
    counts: Counter[str] = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        payload = obj["payload"]
        if obj["type"] == "event_msg" and payload["type"] == "user_message":
            counts["typed"] += 1
        if obj["type"] == "response_item":
            counts[payload.get("role") or payload["type"]] += 1
    return counts


@pytest.mark.usefixtures("corpora")
@pytest.mark.parametrize("name", [BIG, SMALL])
def test_a_real_rollout_imports_with_the_counts_its_file_holds(name: str) -> None:
    path = FIXTURES / name
    held = _file_counts(path)
    notes = ReadNotes()
    records = read_records(path, "auto", None, 1_000_000, notes=notes)
    assert notes.detected.startswith("codex")
    kinds = Counter(r.message.kind for r in records)
    assert kinds[Kind.USER] == held["typed"] == 1  # exchanges: one per typed prompt
    assert kinds[Kind.SYSTEM] == held["developer"] + held["user"] - held["typed"]  # injected context
    assert kinds[Kind.ASSISTANT] == held["assistant"]
    assert kinds[Kind.TOOL_CALL] == held["function_call"] + held["custom_tool_call"]
    assert kinds[Kind.TOOL_RESULT] == held["function_call_output"] + held["custom_tool_call_output"]
    calls = {r.message.tool_call_id for r in records if r.message.kind is Kind.TOOL_CALL}
    results = {r.message.tool_call_id for r in records if r.message.kind is Kind.TOOL_RESULT}
    assert calls == results  # every call paired
    session = json.loads(path.read_text(encoding="utf-8").splitlines()[0])["payload"]["id"]
    assert {r.agent_id for r in records} == {session}
    first_user = next(r for r in records if r.message.kind is Kind.USER)
    assert first_user.message.content.startswith("[REDACTED_TEXT len=")
    assert all(r.message.created_at is not None for r in records)
    # The preamble comes first: nothing before the typed prompt opens an exchange.
    assert [r.message.kind for r in records[: records.index(first_user)]] == [Kind.SYSTEM] * kinds[
        Kind.SYSTEM
    ]


def _line(kind: str, payload: dict[str, Any], second: int = 0) -> dict[str, Any]:
    return {"timestamp": f"2025-09-01T10:00:{second:02d}Z", "type": kind, "payload": payload}


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


META = _line("session_meta", {"id": "s-1", "cli_version": "0.39.0"})
ANSWER = _line(
    "response_item",
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]},
    5,
)


def _kinds(lines: list[dict[str, Any]]) -> list[tuple[Kind, str]]:
    records = parse("".join(json.dumps(x) + "\n" for x in lines), "codex", agent=None)
    return [(r.message.kind, r.message.content) for r in records]


def test_an_older_rollout_without_events_tells_injected_context_by_its_text() -> None:
    lines = [
        META,
        _line("response_item", _user("<environment_context>cwd</environment_context>")),
        _line("response_item", _user("fix the build"), 1),
        ANSWER,
    ]
    assert _kinds(lines) == [
        (Kind.SYSTEM, "<environment_context>cwd</environment_context>"),
        (Kind.USER, "fix the build"),
        (Kind.ASSISTANT, "Done."),
    ]


def test_a_typed_prompt_logged_before_its_item_is_still_the_user_turn() -> None:
    lines = [
        META,
        _line("event_msg", {"type": "user_message", "message": "fix the build"}),
        _line("response_item", _user("fix the build"), 1),
        ANSWER,
    ]
    assert _kinds(lines)[0] == (Kind.USER, "fix the build")


def test_calls_custom_calls_reasoning_and_compaction() -> None:
    lines = [
        META,
        _line("response_item", _user("run it"), 1),
        _line("event_msg", {"type": "user_message", "message": "run it"}, 1),
        _line("response_item", {"type": "reasoning", "summary": [], "encrypted_content": "gAAA"}, 2),
        _line(
            "response_item",
            {"type": "function_call", "name": "shell", "call_id": "c1", "arguments": '{"command": ["ls"]}'},
            2,
        ),
        _line("response_item", {"type": "function_call_output", "call_id": "c1", "output": "a.py"}, 3),
        _line(
            "response_item",
            {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c2", "input": "*** Begin Patch"},
            3,
        ),
        _line("response_item", {"type": "custom_tool_call_output", "call_id": "c2", "output": "ok"}, 4),
        _line("compacted", {"message": "The user asked to run it; it ran."}, 6),
        _line("turn_context", {"model": "gpt-5-codex"}, 6),
    ]
    records = parse("".join(json.dumps(x) + "\n" for x in lines), "codex", agent="mine")
    assert [r.message.kind for r in records] == [
        Kind.USER,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.CLEAR,
        Kind.SYSTEM,
    ]
    assert records[1].message.input == {"command": ["ls"]}
    assert records[3].message.input == "*** Begin Patch"
    assert {r.agent_id for r in records} == {"mine"}


def test_a_rollout_without_a_session_needs_an_agent() -> None:
    text = json.dumps(_line("response_item", _user("hi"))) + "\n" + json.dumps(ANSWER) + "\n"
    assert "no session_meta line" in str(failure(text, "codex", agent=None))


# The layout of rollouts before the `{timestamp, type, payload}` lines (Codex CLI to about 0.34), as public
# readers of Codex logs describe it: a bare header, bare Responses items, `record_type` state lines.
OLDER = [
    {
        "id": "0f6c2a1e-6f0e-4c3b-9d5e-0a1b2c3d4e5f",
        "timestamp": "2025-06-02T10:11:12.345Z",
        "instructions": None,
    },
    {"record_type": "state"},
    {
        "type": "message",
        "id": None,
        "role": "user",
        "content": [{"type": "input_text", "text": "<environment_context>cwd</environment_context>"}],
    },
    {
        "type": "message",
        "id": None,
        "role": "user",
        "content": [{"type": "input_text", "text": "list the files"}],
    },
    {"record_type": "state"},
    {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
    {
        "type": "function_call",
        "id": "fc_1",
        "name": "shell",
        "arguments": '{"command": ["ls"]}',
        "call_id": "call_1",
    },
    {"type": "function_call_output", "call_id": "call_1", "output": "a\nb\n"},
    {
        "type": "message",
        "timestamp": "2025-06-02T10:11:20Z",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Two files."}],
    },
]


def test_a_rollout_of_the_older_layout_is_detected_and_read() -> None:
    text = "".join(json.dumps(line) + "\n" for line in OLDER)
    notes = ReadNotes()
    records = list(read_records_from(text, notes))
    assert notes.detected.startswith("codex (a Codex CLI rollout of the older layout")
    assert [(r.message.kind, r.message.content or r.message.tool_call_id) for r in records] == [
        (Kind.SYSTEM, "<environment_context>cwd</environment_context>"),
        (Kind.USER, "list the files"),
        (Kind.TOOL_CALL, "call_1"),
        (Kind.TOOL_RESULT, "a\nb\n"),
        (Kind.ASSISTANT, "Two files."),
    ]
    assert {r.agent_id for r in records} == {"0f6c2a1e-6f0e-4c3b-9d5e-0a1b2c3d4e5f"}
    times = [str(r.message.created_at) for r in records]
    assert times[:4] == ["2025-06-02 10:11:12.345000+00:00"] * 4  # the header's time: the items carry none
    assert times[4] == "2025-06-02 10:11:20+00:00"


def read_records_from(text: str, notes: ReadNotes) -> list[Any]:
    import io

    from summarizer.ingest import iter_stream_records

    return list(
        iter_stream_records(io.BytesIO(text.encode()), "old.jsonl", "auto", None, 1 << 20, notes=notes)
    )
