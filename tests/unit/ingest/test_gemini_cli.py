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
    assert [r.message.host_id for r in records[:3]] == ["m1", "m2#1", "m2#2"]
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
