"""Agent logs as the tools write them today: parallel calls, interrupts, orphan results, lines of types a
reader does not know, Codex prompts written only as events, JSON-wrapped outputs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.kinds import Kind
from summarizer.ingest import ReadNotes
from summarizer.ingest.codex import CodexRollout
from tests.unit.ingest.helpers import jsonl, parse


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


def _use(call: str) -> list[dict[str, Any]]:
    return [{"type": "tool_use", "id": call, "name": "Read", "input": {"file_path": call}}]


def _result(call: str, text: str = "ok") -> list[dict[str, Any]]:
    return [{"type": "tool_result", "tool_use_id": call, "content": text}]


PARALLEL = [
    _cc("user", "read both", "u1", None, 1),
    _cc("assistant", _use("t1"), "a1", "u1", 2),
    _cc("assistant", _use("t2"), "a2", "a1", 3),
    _cc("user", _result("t1"), "r1", "a1", 4),  # each result names the line of its own call
    _cc("user", _result("t2"), "r2", "a2", 5),
    _cc("assistant", [{"type": "text", "text": "both read"}], "a3", "r2", 6),
]


def _kinds(text: str, **kwargs: Any) -> list[tuple[Kind, str]]:
    return [(r.message.kind, r.message.content) for r in parse(text, "claude-code", agent=None, **kwargs)]


def test_parallel_tool_calls_and_their_results_make_no_rewind() -> None:
    kinds = [kind for kind, _ in _kinds(jsonl(*PARALLEL))]
    assert kinds == [
        Kind.USER,
        Kind.TOOL_CALL,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.TOOL_RESULT,
        Kind.ASSISTANT,
    ]


def test_a_prompt_that_goes_back_is_still_a_rewind_after_parallel_calls() -> None:
    again = _cc("user", "no, start over", "u2", "u1", 7)  # back to the first prompt: a rewind
    kinds = _kinds(jsonl(*PARALLEL, again))
    assert kinds[-2:] == [(Kind.REWIND, "continues from u1"), (Kind.USER, "no, start over")]
    assert [k for k, _ in kinds].count(Kind.REWIND) == 1


@pytest.mark.parametrize(
    "text", ["[Request interrupted by user for tool use]", "[Request interrupted by user]"]
)
def test_an_interrupt_is_a_mark_in_the_exchange_it_interrupts(text: str) -> None:
    lines = [
        _cc("user", "run the tests", "u1", None, 1),
        _cc("assistant", _use("t1"), "a1", "u1", 2),
        _cc("user", _result("t1", "The user doesn't want to proceed with this tool use."), "r1", "a1", 3),
        _cc("user", [{"type": "text", "text": text}], "i1", "r1", 4),
        _cc("user", "only the fast ones", "u2", "i1", 5),
    ]
    records = parse(jsonl(*lines), "claude-code", agent=None)
    kinds = [r.message.kind for r in records]
    assert kinds == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.MARK, Kind.USER]
    mark = records[3].message
    assert (mark.content, mark.starts_exchange, mark.host_id) == (text, False, "i1")
    assert [r.message.starts_exchange for r in records].count(True) == 2


def test_an_orphan_result_is_kept_as_tool_activity_and_counted_unless_strict() -> None:
    lines = [
        _cc("user", "go on", "u1", None, 1),
        _cc("user", _result("gone", "output of a call made before this file"), "r0", "u1", 2),
        _cc("assistant", [{"type": "text", "text": "done"}], "a1", "r0", 3),
    ]
    notes = ReadNotes()
    records = parse(jsonl(*lines), "claude-code", agent=None, strict=False, notes=notes)
    orphan = records[1].message
    assert [r.message.kind for r in records] == [Kind.USER, Kind.TOOL, Kind.ASSISTANT]
    assert (orphan.content, orphan.tool_call_id) == ("output of a call made before this file", "gone")
    assert notes.orphan_results == 1
    assert notes.warnings == [
        "chat.jsonl:2: tool result for call 'gone', which is not earlier in its exchange; kept as tool activity"
    ]
    strict = parse(jsonl(*lines), "claude-code", agent=None)  # strict: left for the store to refuse
    assert strict[1].message.kind is Kind.TOOL_RESULT


def test_unknown_events_and_a_broken_line_do_not_refuse_the_transcript() -> None:
    text = (
        jsonl(
            {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}, "isSnapshotUpdate": False},
            _cc("user", "hello", "u1", None, 1),
            {"type": "some-event-of-next-month", "sessionId": "s", "uuid": "x1", "data": [1, 2]},
        )
        + '{"type": "assistant", "sessionId": "s", "uuid": \n'
        + jsonl(
            {**_cc("assistant", "not blocks", "a0", "u1", 2), "message": "a string"},
            _cc("assistant", [{"type": "text", "text": "hi"}], "a1", "u1", 3),
        )
    )
    notes = ReadNotes()
    records = parse(text, "auto", agent=None, strict=False, notes=notes)
    assert [(r.message.kind, r.message.content) for r in records] == [
        (Kind.USER, "hello"),
        (Kind.ASSISTANT, "hi"),
    ]
    assert notes.skipped == 3
    assert notes.warnings == [
        "chat.jsonl:4: invalid JSON: Expecting value at column 49; skipped",
        "chat.jsonl:5: an assistant event needs 'message' as an object, got string; skipped",
        "chat.jsonl:3: 1 line(s) of unknown type 'some-event-of-next-month' skipped",
    ]
    with pytest.raises(InvalidMessage, match=r"^chat.jsonl:4: "):
        parse(text, "auto", agent=None)


def _codex(kind: str, payload: dict[str, Any], second: int) -> dict[str, Any]:
    return {"timestamp": f"2026-03-01T10:00:{second:02d}.000Z", "type": kind, "payload": payload}


DESKTOP = [
    _codex("session_meta", {"id": "d-1", "originator": "Codex Desktop", "cli_version": "0.117.0"}, 0),
    _codex(
        "response_item",
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "<environment_context>x"}],
        },
        1,
    ),
    _codex("event_msg", {"type": "user_message", "message": "fix the build", "images": []}, 2),
    _codex("response_item", {"type": "ghost_snapshot", "ghost_commit": {"id": "4a64dbe7"}}, 3),
    _codex(
        "response_item",
        {"type": "function_call", "name": "shell", "arguments": '{"command": ["make"]}', "call_id": "c1"},
        4,
    ),
    _codex(
        "response_item",
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": json.dumps({"output": "make: *** [all] Error 2\n", "metadata": {"exit_code": 2}}),
        },
        5,
    ),
    _codex("response_item", {"type": "a_response_item_of_next_month", "x": 1}, 6),
    _codex(
        "response_item",
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Fixed."}]},
        7,
    ),
    _codex("event_msg", {"type": "user_message", "message": "thanks, now run it"}, 8),
    _codex(
        "response_item",
        {
            "type": "function_call_output",
            "call_id": "c9",
            "output": json.dumps({"output": "fine", "metadata": {"exit_code": 0}}),
        },
        9,
    ),
]


def test_a_desktop_rollout_with_prompts_only_as_events_has_exchanges() -> None:
    notes = ReadNotes()
    records = parse(jsonl(*DESKTOP), "auto", agent=None, strict=False, notes=notes)
    shown = [(r.message.kind, r.message.content) for r in records]
    assert shown == [
        (Kind.SYSTEM, "<environment_context>x"),
        (Kind.USER, "fix the build"),
        (Kind.TOOL_CALL, ""),
        (Kind.TOOL_RESULT, "make: *** [all] Error 2\n\n[exit code 2]"),
        (Kind.ASSISTANT, "Fixed."),
        (Kind.USER, "thanks, now run it"),
        (Kind.TOOL, "fine"),  # its call is not in the file: kept as activity
    ]
    created_at = records[1].message.created_at
    assert created_at is not None
    assert created_at.second == 2
    assert records[3].message.is_error is True
    assert records[6].message.is_error is None  # exit code 0: not an error
    assert notes.skipped == 1
    assert "1 response item(s) of unknown type 'a_response_item_of_next_month' skipped" in notes.warnings[-1]


def test_a_typed_prompt_carried_by_its_item_is_not_stored_twice() -> None:
    lines = [
        DESKTOP[0],
        _codex("event_msg", {"type": "user_message", "message": "hello"}, 1),
        _codex(
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello"}]},
            2,
        ),
        DESKTOP[7],
    ]
    records = parse(jsonl(*lines), "codex", agent=None)
    assert [(r.message.kind, r.message.content) for r in records] == [
        (Kind.USER, "hello"),
        (Kind.ASSISTANT, "Fixed."),
    ]


def test_a_prompt_event_waiting_for_its_item_keeps_the_rollout_pending() -> None:
    rollout = CodexRollout(None)
    rollout.feed(DESKTOP[0], "r.jsonl:1")
    before = rollout.pending
    assert rollout.feed(DESKTOP[2], "r.jsonl:3") == []
    during = rollout.pending  # its item may still come
    (prompt,) = rollout.finish()
    assert (before, during, rollout.pending) == (False, True, False)
    assert (prompt.message.kind, prompt.message.content, prompt.message.where) == (
        Kind.USER,
        "fix the build",
        "r.jsonl:3",
    )
