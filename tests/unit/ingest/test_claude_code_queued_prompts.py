"""Prompts typed while Claude Code works are the user's prompts, stored once, in the exchange they were
typed into or the next; task notifications and hook output are marks of the running exchange, never
prompts; attachment types not known are counted and named. `watch` (line by line, resumed between reads)
stores exactly what `ingest` reads from the whole file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest import IngestRecord, ReadNotes
from summarizer.ingest.follow import read_new
from summarizer.ingest.reader import read_records

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "claude_code"
ATTACHMENTS = FIXTURES / "queued_command_attachments.jsonl"
QUEUE_LINES = FIXTURES / "queue_operations_then_user_lines.jsonl"
LIMIT = 1 << 20


def _key(records: list[IngestRecord]) -> list[tuple[object, ...]]:
    return [
        (r.agent_id, r.message.kind, r.message.content, r.message.host_id, r.message.continues_exchange)
        for r in records
    ]


def _whole(path: Path, notes: ReadNotes | None = None) -> list[IngestRecord]:
    return read_records(path, "claude-code", None, LIMIT, notes=notes)


def _followed_line_by_line(source: Path, live: Path) -> tuple[list[IngestRecord], list[str]]:
    """The records `watch` stores when the file grows one line at a time, read after each line."""
    records: list[IngestRecord] = []
    said: list[str] = []
    position = None
    live.write_bytes(b"")
    for line in source.read_bytes().splitlines(keepends=True):
        with live.open("ab") as out:
            out.write(line)
        read = read_new(live, position, fmt="auto", max_bytes=LIMIT)
        records += read.records
        position = read.position or position
        said += [read.problem] if read.problem else []
    return records, said


def _prompts(records: list[IngestRecord]) -> list[str]:
    return [r.message.content for r in records if r.message.starts_exchange]


def test_a_prompt_folded_into_the_running_turn_is_the_users_and_stored_once() -> None:
    records = _whole(ATTACHMENTS)
    users = [r.message for r in records if r.message.kind is Kind.USER]
    assert [(m.content, m.continues_exchange) for m in users] == [
        ("Count the tomato plants listed in beds.txt", False),
        ("also count the basil", True),  # typed while the Read ran: in that exchange
        ("Now list the peppers", False),
    ]
    assert users[1].host_id == "00000000-0000-4000-8000-000000000007"  # the attachment line's uuid
    assert _prompts(records) == ["Count the tomato plants listed in beds.txt", "Now list the peppers"]


def test_notifications_hooks_and_titles_are_marks_of_the_running_exchange() -> None:
    marks = [r.message.content for r in _whole(ATTACHMENTS) if r.message.kind is Kind.MARK]
    assert (
        marks[0]
        == "UserPromptSubmit (hook_additional_context): Reminder: the garden beds are numbered from 1."
    )
    assert marks[1] == "PostToolUse:Read (hook_non_blocking_error): garden-guard: log folder missing"
    assert marks[2].startswith("<task-notification>\n<task-id>b7c1d2e</task-id>")
    assert marks[3].startswith("<task-notification>\n<task-id>c8d2e3f</task-id>")  # a queued notification
    assert marks[4] == "title: Garden inventory"
    assert len(marks) == 5  # the silent hook_success and the todo reminder say nothing


def test_an_attachment_of_a_type_not_known_is_counted_and_named() -> None:
    notes = ReadNotes()
    _whole(ATTACHMENTS, notes)
    assert notes.skipped == 1
    assert notes.warnings == [
        f"{ATTACHMENTS}:12: 1 line(s) of unknown type 'attachment:seed_catalogue_delta' skipped"
    ]


def test_a_dequeued_prompt_opens_the_next_exchange_and_a_prompt_taken_back_is_stored_once() -> None:
    records = _whole(QUEUE_LINES)
    users = [
        (r.message.content, r.message.continues_exchange) for r in records if r.message.kind is Kind.USER
    ]
    assert users == [
        ("What temperature does the kiln reach?", False),
        ("in Celsius please", False),  # its user line after the dequeue: the next exchange
        ("and in Fahrenheit?", True),  # taken back while the agent worked; its later user line not again
    ]
    marks = [r.message.content for r in records if r.message.kind is Kind.MARK]
    assert len(marks) == 1
    assert marks[0].startswith("<bash-notification>")


@pytest.mark.parametrize("fixture", [ATTACHMENTS, QUEUE_LINES], ids=lambda p: p.stem)
def test_watch_line_by_line_stores_what_the_whole_file_gives(fixture: Path, tmp_path: Path) -> None:
    followed, said = _followed_line_by_line(fixture, tmp_path / "session.jsonl")
    assert _key(followed) == _key(_whole(fixture))
    if fixture == ATTACHMENTS:
        assert said == [
            f"{tmp_path / 'session.jsonl'}:12: 1 line(s) of unknown type 'attachment:seed_catalogue_delta' skipped"
        ]


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj) + "\n"


def test_a_user_line_repeating_a_queued_prompt_is_not_stored_again_after_a_restart(tmp_path: Path) -> None:
    """The queued prompts remembered with the followed position: a read resumed later still knows it."""
    live = tmp_path / "s.jsonl"
    common = {"sessionId": "s9", "timestamp": "2026-05-04T09:00:00Z"}
    prompt = {
        **common,
        "type": "user",
        "uuid": "p1",
        "parentUuid": None,
        "message": {"role": "user", "content": "go"},
    }
    queued = {
        **common,
        "type": "attachment",
        "uuid": "q1",
        "parentUuid": "p1",
        "attachment": {"type": "queued_command", "prompt": "stop at noon", "origin": {"kind": "human"}},
    }
    again = {
        **prompt,
        "uuid": "p2",
        "parentUuid": "q1",
        "message": {"role": "user", "content": "stop at noon"},
    }
    live.write_text(_line(prompt) + _line(queued))
    first = read_new(live, None, fmt="auto", max_bytes=LIMIT)
    with live.open("a") as out:
        out.write(_line(again))
    second = read_new(live, first.position, fmt="auto", max_bytes=LIMIT)
    assert [r.message.content for r in first.records] == ["go", "stop at noon"]
    assert second.records == []


def test_a_queued_prompt_from_another_session_or_marked_meta_is_no_prompt(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    common = {
        "sessionId": "s9",
        "timestamp": "2026-05-04T09:00:00Z",
        "type": "attachment",
        "parentUuid": None,
    }
    peer = {"type": "queued_command", "prompt": "from elsewhere", "origin": {"kind": "peer"}}
    meta = {"type": "queued_command", "prompt": "injected", "origin": {"kind": "human"}, "isMeta": True}
    shell = {
        "type": "queued_command",
        "prompt": "ls beds",
        "commandMode": "bash",
        "origin": {"kind": "human"},
    }
    lines = [{**common, "uuid": f"a{i}", "attachment": a} for i, a in enumerate((peer, meta, shell))]
    path.write_text("".join(_line(obj) for obj in lines))
    got = [(r.message.kind, r.message.content) for r in _whole(path)]
    assert got == [(Kind.MARK, "from elsewhere"), (Kind.MARK, "injected"), (Kind.COMMAND, "!ls beds")]


def _queue_line(operation: str, content: str, second: int, **extra: str) -> dict[str, Any]:
    stamp = f"2026-05-04T09:00:{second:02d}Z"
    return {
        "type": "queue-operation",
        "operation": operation,
        "content": content,
        "sessionId": "s9",
        "timestamp": stamp,
        **extra,
    }


def test_the_same_words_queued_twice_are_two_prompts_and_a_remove_before_its_attachment_adds_none(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    common = {"sessionId": "s9", "type": "attachment", "parentUuid": None}
    attachment = {"type": "queued_command", "prompt": "keep going", "origin": {"kind": "human"}}
    lines = [
        _queue_line("enqueue", "keep going", 1),
        _queue_line("remove", "keep going", 2, reason="absorbed_mid_turn"),
        {**common, "uuid": "a1", "timestamp": "2026-05-04T09:00:03Z", "attachment": attachment},
        _queue_line("enqueue", "keep going", 4),
        {**common, "uuid": "a2", "timestamp": "2026-05-04T09:00:05Z", "attachment": attachment},
        _queue_line("remove", "keep going", 6, reason="absorbed_mid_turn"),
    ]
    path.write_text("".join(_line(obj) for obj in lines))
    got = [(r.message.kind, r.message.content, r.message.host_id) for r in _whole(path)]
    assert got == [(Kind.USER, "keep going", "a1"), (Kind.USER, "keep going", "a2")]
