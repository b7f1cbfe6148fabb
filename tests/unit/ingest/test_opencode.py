"""opencode session exports (`opencode export SESSION`), built after the export's message and part shapes.
The real exports are tested in test_opencode_fixtures.py."""

from __future__ import annotations

import io
import json
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest import ReadNotes, iter_stream_records

EXPORT: dict[str, Any] = {
    "info": {"id": "ses_4c60708edffePbrrcxPKCtw2F7", "title": "Fix the flaky test", "version": "1.0.0"},
    "messages": [
        {
            "info": {
                "id": "msg_1",
                "role": "user",
                "sessionID": "ses_4c60708edffePbrrcxPKCtw2F7",
                "time": {"created": 1766204170000},
            },
            "parts": [
                {"id": "prt_1", "type": "text", "text": "Why does test_login fail on CI?"},
                {"id": "prt_2", "type": "text", "text": "<file contents>", "synthetic": True},
            ],
        },
        {
            "info": {
                "id": "msg_2",
                "role": "assistant",
                "sessionID": "ses_4c60708edffePbrrcxPKCtw2F7",
                "time": {"created": 1766204178000, "completed": 1766204190000},
            },
            "parts": [
                {"id": "prt_3", "type": "step-start"},
                {"id": "prt_4", "type": "reasoning", "text": "look at the test first"},
                {
                    "id": "prt_5",
                    "type": "tool",
                    "callID": "call_1",
                    "tool": "bash",
                    "state": {
                        "status": "completed",
                        "input": {"command": "pytest tests/test_login.py"},
                        "output": "1 failed: clock skew",
                        "title": "pytest",
                    },
                },
                {
                    "id": "prt_6",
                    "type": "tool",
                    "callID": "call_2",
                    "tool": "read",
                    "state": {
                        "status": "error",
                        "input": {"filePath": "/app/missing.py"},
                        "error": "File not found",
                    },
                },
                {"id": "prt_7", "type": "text", "text": "The test depends on the machine clock."},
                {"id": "prt_8", "type": "step-finish", "tokens": {"input": 100, "output": 20}},
            ],
        },
    ],
}


def test_an_export_is_detected_and_each_tool_part_is_a_call_and_its_result() -> None:
    notes = ReadNotes()
    data = json.dumps(EXPORT, indent=2).encode()
    records = list(iter_stream_records(io.BytesIO(data), "export.json", "auto", None, 1_000_000, notes=notes))
    assert notes.detected.startswith("opencode")
    assert [(r.message.kind, r.message.content, r.message.is_error) for r in records] == [
        (Kind.USER, "Why does test_login fail on CI?", None),
        (Kind.TOOL_CALL, "", None),
        (Kind.TOOL_RESULT, "1 failed: clock skew", False),
        (Kind.TOOL_CALL, "", None),
        (Kind.TOOL_RESULT, "File not found", True),
        (Kind.ASSISTANT, "The test depends on the machine clock.", None),
    ]
    assert {r.agent_id for r in records} == {"ses_4c60708edffePbrrcxPKCtw2F7"}
    assert records[1].message.input == {"command": "pytest tests/test_login.py"}
    assert str(records[0].message.created_at) == "2025-12-20 04:16:10+00:00"
    assert notes.unpaired_calls == 0


def test_a_creation_time_out_of_range_is_a_named_problem_not_a_crash() -> None:
    export = json.loads(json.dumps(EXPORT))
    export["messages"][0]["info"]["time"]["created"] = 1e20
    notes = ReadNotes()
    data = json.dumps(export).encode()
    records = list(iter_stream_records(io.BytesIO(data), "export.json", "auto", None, 1_000_000, notes=notes))
    assert records  # the first message alone is left out
    assert records[0].message.kind is Kind.TOOL_CALL
    assert notes.skipped == 1
    assert any("info.time.created 1e+20 is out of range" in w for w in notes.warnings), notes.warnings
