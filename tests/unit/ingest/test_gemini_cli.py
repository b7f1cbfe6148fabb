"""Gemini CLI sessions, in both layouts the tool writes (one JSON document, or JSON Lines), built after the
session record of google-gemini/gemini-cli's chat recording. The real session files (one-document layout
only) are tested in test_gemini_cli_fixtures.py."""

from __future__ import annotations

import io
import json
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest import ReadNotes, iter_stream_records
from tests.unit.ingest.helpers import failure

META = {
    "sessionId": "f86f5318-f47b-4433-85f8-ec9d9a417f8e",
    "projectHash": "79b6fa86e3c0d31765c7e3c6de511a7b96342a2e947135d5db396e49e27020cd",
    "startTime": "2025-10-18T14:57:28.974Z",
    "lastUpdated": "2025-10-18T14:58:07.161Z",
}
MESSAGES: list[dict[str, Any]] = [
    {"id": "m1", "timestamp": "2025-10-18T14:57:28.974Z", "type": "user", "content": "List the files here"},
    {
        "id": "m2",
        "timestamp": "2025-10-18T14:57:35.100Z",
        "type": "gemini",
        "content": "",
        "thoughts": [{"subject": "Listing", "description": "I will list the directory."}],
        "toolCalls": [
            {
                "id": "list_directory-1",
                "name": "list_directory",
                "args": {"path": "/home/me/app"},
                "result": [
                    {
                        "functionResponse": {
                            "id": "list_directory-1",
                            "name": "list_directory",
                            "response": {"output": "README.md\nsrc"},
                        }
                    }
                ],
                "status": "success",
                "timestamp": "2025-10-18T14:57:35.200Z",
            },
            {
                "id": "read_file-2",
                "name": "read_file",
                "args": {"absolute_path": "/home/me/app/missing.md"},
                "result": [
                    {
                        "functionResponse": {
                            "id": "read_file-2",
                            "name": "read_file",
                            "response": {"error": "File not found"},
                        }
                    }
                ],
                "status": "error",
                "timestamp": "2025-10-18T14:57:36.000Z",
            },
        ],
        "tokens": {"input": 9000, "output": 30, "total": 9030},
        "model": "gemini-2.5-pro",
    },
    {"id": "m3", "timestamp": "2025-10-18T14:57:40.000Z", "type": "info", "content": "Request cancelled."},
    {
        "id": "m4",
        "timestamp": "2025-10-18T14:58:07.161Z",
        "type": "gemini",
        "content": "There is a README and src.",
    },
]


def _read(data: bytes, fmt: str = "auto") -> tuple[list[Any], ReadNotes]:
    notes = ReadNotes()
    records = list(iter_stream_records(io.BytesIO(data), "session.json", fmt, None, 1_000_000, notes=notes))
    return records, notes


def _shown(records: list[Any]) -> list[tuple[Kind, str, str | None, bool | None]]:
    return [(r.message.kind, r.message.content, r.message.tool_call_id, r.message.is_error) for r in records]


EXPECTED = [
    (Kind.USER, "List the files here", None, None),
    (Kind.TOOL_CALL, "", "list_directory-1", None),
    (Kind.TOOL_RESULT, "README.md\nsrc", "list_directory-1", False),
    (Kind.TOOL_CALL, "", "read_file-2", None),
    (Kind.TOOL_RESULT, "File not found", "read_file-2", True),
    (Kind.ASSISTANT, "There is a README and src.", None, None),
]


def test_a_whole_session_document_is_detected_and_imported() -> None:
    records, notes = _read(json.dumps({**META, "messages": MESSAGES}, indent=2).encode())
    assert notes.detected.startswith("gemini-cli")
    assert _shown(records) == EXPECTED
    assert {r.agent_id for r in records} == {META["sessionId"]}
    assert records[1].message.input == {"path": "/home/me/app"}
    assert [r.message.host_id for r in records[:3]] == [
        "m1",
        "m2#list_directory-1",
        "m2#list_directory-1#result",
    ]
    assert str(records[0].message.created_at) == "2025-10-18 14:57:28.974000+00:00"


def test_the_json_lines_session_log_imports_the_same() -> None:
    lines = [META, *MESSAGES]
    records, notes = _read("".join(json.dumps(x) + "\n" for x in lines).encode())
    assert notes.detected.startswith("gemini-cli")
    assert _shown(records) == EXPECTED


def test_a_message_of_an_unknown_type_is_refused_with_its_place() -> None:
    bad = {**META, "messages": [{"id": "x", "type": "robot", "content": "beep"}]}
    assert "'type' (one of: error, gemini, info, user, warning), got 'robot'" in str(
        failure(json.dumps(bad), "gemini-cli", agent=None)
    )


def _versions() -> list[dict[str, Any]]:
    """The JSON Lines log Gemini CLI 0.39+ writes for MESSAGES (its chatRecordingService appends a message
    again whenever it changes, a `$set` after each message, and `$rewindTo` on a rewind)."""
    user, model, _notice, answer = MESSAGES
    calls = model["toolCalls"]
    running = {**calls[0], "status": "executing", "result": None}
    return [
        {**META, "kind": "main"},
        user,
        {"$set": {"lastUpdated": "2025-10-18T14:57:29Z"}},
        {**model, "toolCalls": [running], "tokens": None},  # the first call, still running
        {**model, "toolCalls": [calls[0]], "tokens": None},  # its result arrives
        {**model, "toolCalls": calls},  # the second call, done, and the tokens
        {"$set": {"lastUpdated": "2025-10-18T14:57:37Z", "messages": []}},
        answer,
    ]


def test_the_json_lines_log_records_each_part_of_a_growing_message_once() -> None:
    text = "".join(json.dumps(x) + "\n" for x in _versions())
    records, notes = _read(text.encode())
    assert notes.detected.startswith("gemini-cli")
    assert _shown(records) == EXPECTED
    assert notes.unpaired_calls == 0
    assert len({r.message.host_id for r in records}) == len(records)


def test_a_rewind_in_the_log_is_a_marker_and_what_came_before_stays() -> None:
    lines = [
        *_versions(),
        {"$rewindTo": "m4"},
        {"id": "m5", "timestamp": "2025-10-18T14:59:00Z", "type": "user", "content": "Only src"},
    ]
    records, _ = _read("".join(json.dumps(x) + "\n" for x in lines).encode())
    assert _shown(records)[: len(EXPECTED)] == EXPECTED
    assert [(r.message.kind, r.message.content) for r in records[len(EXPECTED) :]] == [
        (Kind.REWIND, "rewound to before m4"),
        (Kind.USER, "Only src"),
    ]
    assert records[len(EXPECTED)].message.created_at == records[len(EXPECTED) - 1].message.created_at


def test_a_followed_log_resumes_a_growing_message_where_it_stopped(tmp_path: Any) -> None:
    from pathlib import Path

    from summarizer.ingest.follow import read_new

    path = Path(tmp_path) / "session-2025-10-18T14-57-f86f5318.jsonl"
    lines = [json.dumps(x) + "\n" for x in _versions()]
    path.write_text("".join(lines[:4]))
    first = read_new(path, None, max_bytes=1 << 20)
    with path.open("a") as out:
        out.write("".join(lines[4:]))
    second = read_new(path, first.position, max_bytes=1 << 20)
    assert _shown(first.records + second.records) == EXPECTED
