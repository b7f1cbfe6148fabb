"""Codex rollouts: the model's searches for tools loaded on demand are a call and its result."""

from __future__ import annotations

from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest import ReadNotes
from tests.unit.ingest.helpers import failure, jsonl, parse

STAMP = "2026-03-14T10:00:00.000Z"


def _line(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": STAMP, "type": kind, "payload": payload}


def _rollout(*items: dict[str, Any]) -> str:
    return jsonl(
        _line("session_meta", {"id": "s-1", "cwd": "/w"}),
        _line(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Add a meeting."}],
            },
        ),
        _line("event_msg", {"type": "user_message", "message": "Add a meeting."}),
        *(_line("response_item", item) for item in items),
    )


SEARCH = {
    "type": "tool_search_call",
    "call_id": "ts_1",
    "status": "completed",
    "execution": "client",
    "arguments": {"query": "create a calendar event", "limit": 5},
}
FOUND = {
    "type": "tool_search_output",
    "call_id": "ts_1",
    "status": "completed",
    "execution": "client",
    "tools": [
        {"type": "namespace", "name": "calendar", "tools": [{"type": "function", "name": "create_event"}]},
        {"type": "function", "name": "drive_search", "parameters": {"type": "object"}},
    ],
}


def test_a_tool_search_and_its_output_are_a_paired_call_and_result() -> None:
    notes = ReadNotes()
    records = parse(_rollout(SEARCH, FOUND), "codex", agent=None, strict=False, notes=notes)
    shown = [(r.message.kind, r.message.tool_call_id, r.message.name) for r in records]
    assert shown == [
        (Kind.USER, None, None),
        (Kind.TOOL_CALL, "ts_1", "tool_search"),
        (Kind.TOOL_RESULT, "ts_1", None),
    ]
    assert records[1].message.input == {"query": "create a calendar event", "limit": 5}
    assert records[2].message.content == "calendar.create_event\ndrive_search"
    assert (notes.skipped, notes.unpaired_calls, notes.orphan_results) == (0, 0, 0)


def test_a_server_side_search_without_call_ids_is_answered_by_its_output() -> None:
    search = {k: v for k, v in SEARCH.items() if k != "call_id"} | {"id": "tsc_9", "execution": "server"}
    found = {k: v for k, v in FOUND.items() if k != "call_id"} | {"tools": [], "status": "incomplete"}
    notes = ReadNotes()
    records = parse(_rollout(search, found), "codex", agent=None, strict=False, notes=notes)
    assert [(r.message.kind, r.message.tool_call_id) for r in records[1:]] == [
        (Kind.TOOL_CALL, "tsc_9"),
        (Kind.TOOL_RESULT, "tsc_9"),
    ]
    assert records[2].message.content == "(no tools found)\n[incomplete]"
    assert notes.unpaired_calls == 0


def test_a_tool_search_output_without_tools_is_named() -> None:
    broken = {k: v for k, v in FOUND.items() if k != "tools"}
    error = failure(_rollout(SEARCH, broken), "codex", agent=None)
    assert (error.where, error.reason) == (
        "chat.jsonl:5",
        "a tool_search_output needs 'tools' as an array, got null",
    )
