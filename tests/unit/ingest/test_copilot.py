"""GitHub Copilot agent transcripts, case by case, on short hand-written event lines in the envelope
Copilot CLI writes (`{type, data, id, timestamp, parentId}`)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.ingest import IngestRecord, ReadNotes, ReadOptions, iter_stream_records
from summarizer.ingest.detect import detect
from summarizer.ingest.follow import default_directories

SESSION = "4f1c2d3e-0000-4000-8000-000000000001"
LABEL = f"/home/dev/.copilot/session-state/{SESSION}/events.jsonl"


def _event(kind: str, data: dict[str, Any], n: int) -> str:
    stamp = f"2026-05-07T06:18:{n:02d}.000Z"
    return (
        json.dumps({"type": kind, "data": data, "id": f"e{n}", "timestamp": stamp, "parentId": None}) + "\n"
    )


START = _event(
    "session.start", {"sessionId": SESSION, "producer": "copilot-agent", "copilotVersion": "1.0.43"}, 1
)
PROMPT = _event("user.message", {"content": "list the files", "attachments": []}, 2)


def _read(
    text: str, *, label: str = LABEL, agent: str | None = None, strict: bool = False
) -> tuple[list[IngestRecord], ReadNotes]:
    notes = ReadNotes()
    stream = io.BytesIO(text.encode("utf-8"))
    records = iter_stream_records(stream, label, "auto", agent, 1 << 20, ReadOptions(strict=strict), notes)
    return list(records), notes


def _summary(records: list[IngestRecord]) -> list[tuple[str, str, str | None, object]]:
    return [
        (r.message.kind.value, r.message.content, r.message.tool_call_id, r.message.input) for r in records
    ]


def test_requests_become_calls_and_completions_their_results() -> None:
    answer = {
        "messageId": "m1",
        "content": "Looking.",
        "toolRequests": [
            {"toolCallId": "c1", "name": "bash", "arguments": '{"command": "ls"}', "type": "function"},
            {"toolCallId": "c2", "name": "view", "arguments": {"path": "/repo"}, "type": "function"},
        ],
    }
    text = (
        START
        + PROMPT
        + _event("assistant.message", answer, 3)
        + _event("tool.execution_start", {"toolCallId": "c1", "toolName": "bash", "arguments": {}}, 4)
        + _event(
            "tool.execution_complete", {"toolCallId": "c2", "success": False, "error": {"message": "no"}}, 5
        )
        + _event(
            "tool.execution_complete", {"toolCallId": "c1", "success": True, "result": {"content": "a.py"}}, 6
        )
        + _event("assistant.message", {"messageId": "m2", "content": "One file.", "toolRequests": []}, 7)
    )
    records, notes = _read(text)
    assert notes.detected.startswith("copilot")
    assert _summary(records) == [
        ("user", "list the files", None, None),
        ("assistant", "Looking.", None, None),
        ("tool_call", "", "c1", {"command": "ls"}),  # a JSON string of arguments, decoded
        ("tool_call", "", "c2", {"path": "/repo"}),
        ("tool_result", "no", "c2", None),
        ("tool_result", "a.py", "c1", None),
        ("assistant", "One file.", None, None),
    ]
    assert [r.message.is_error for r in records if r.message.kind.value == "tool_result"] == [True, False]
    assert [r.message.host_id for r in records[1:4]] == ["e3#1", "e3#2", "e3#3"]
    assert {r.agent_id for r in records} == {SESSION}
    assert (notes.unpaired_calls, notes.orphan_results) == (0, 0)


def test_a_call_only_started_is_a_call_and_an_unknown_result_is_kept_as_activity() -> None:
    text = (
        START
        + PROMPT
        + _event("tool.execution_start", {"toolCallId": "u1", "toolName": "bash", "arguments": {"x": 1}}, 3)
        + _event(
            "tool.execution_complete", {"toolCallId": "u1", "success": True, "result": {"content": "ok"}}, 4
        )
        + _event("tool.execution_complete", {"toolCallId": "gone", "success": True, "result": "late"}, 5)
    )
    records, notes = _read(text)
    assert [(k, c, i) for k, c, i, _ in _summary(records)] == [
        ("user", "list the files", None),
        ("tool_call", "", "u1"),
        ("tool_result", "ok", "u1"),
        ("tool", "late", "gone"),  # its call is not in the file
    ]
    assert notes.orphan_results == 1


def test_injected_user_messages_are_system_text_and_an_abort_is_a_mark() -> None:
    injected = {
        "content": "<system_reminder>AGENTS.md says...</system_reminder>",
        "source": "instruction-discovery",
    }
    text = (
        START
        + PROMPT
        + _event("user.message", injected, 3)
        + _event("abort", {"reason": "user initiated"}, 4)
    )
    records, _ = _read(text)
    assert [(k, c) for k, c, _, _ in _summary(records)] == [
        ("user", "list the files"),
        ("system", injected["content"]),
        ("mark", "aborted: user initiated"),
    ]


def test_bookkeeping_is_left_out_and_unknown_event_types_are_counted() -> None:
    text = (
        START
        + _event("assistant.turn_start", {"turnId": "0"}, 2)
        + PROMPT
        + _event("assistant.message_delta", {"messageId": "m", "deltaContent": "Lo"}, 3)
        + _event("session.brand_new_thing", {"x": 1}, 4)
        + _event("session.brand_new_thing", {"x": 2}, 5)
    )
    records, notes = _read(text)
    assert [r.message.kind.value for r in records] == ["user"]
    assert notes.skipped == 2
    assert notes.warnings == [f"{LABEL}: 2 event(s) of unknown type 'session.brand_new_thing' skipped"]


@pytest.mark.parametrize(
    ("label", "agent"),
    [(LABEL, SESSION), ("/home/dev/.copilot/session-state/abc-123.jsonl", "abc-123")],
)
def test_without_session_start_the_agent_comes_from_the_path(label: str, agent: str) -> None:
    records, _ = _read(PROMPT, label=label)
    assert {r.agent_id for r in records} == {agent}


def test_stdin_without_a_session_needs_an_agent() -> None:
    with pytest.raises(InvalidMessage, match="pass --agent"):
        _read(PROMPT, label="-", strict=True)
    records, _ = _read(START + PROMPT, label="-")  # session.start names it
    assert {r.agent_id for r in records} == {SESSION}


def test_detection_tells_copilot_events_from_claude_code_and_codex_lines() -> None:
    assert detect(START.encode(), "events.jsonl").format == "copilot"
    claude = {"type": "user", "sessionId": "s", "uuid": "u", "message": {"role": "user", "content": "hi"}}
    assert detect((json.dumps(claude) + "\n").encode(), "x.jsonl").format == "claude-code"
    codex = {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "x"}}
    assert detect((json.dumps(codex) + "\n").encode(), "x.jsonl").format == "codex"


def test_watch_follows_copilot_clis_session_folder_by_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    state = tmp_path / ".copilot" / "session-state"
    assert state not in default_directories()
    state.mkdir(parents=True)
    assert state in default_directories()
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "elsewhere"))
    assert state not in default_directories()
