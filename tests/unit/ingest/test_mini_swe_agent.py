"""mini-swe-agent trajectories: the tool-calling layout of today and the text-based one of the first
versions, each ending with the submitted patch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.kinds import Kind
from summarizer.ingest.mini_swe_agent import (
    LAYOUT,
    MiniSweTrajectory,
    detect_mini_swe_agent,
    large_mini_swe_agent,
    read_mini_swe_agent,
)
from summarizer.ingest.records import IngestRecord
from tests.unit.ingest.document_reads import lines_of, read_bytes, read_path, reading

FIXTURES = Path(__file__).parents[2] / "fixtures" / "mini_swe_agent"
TOOL_CALLING = FIXTURES / "calc-div-zero.traj.json"
TEXT_BASED = FIXTURES / "calc-text-based.traj.json"


def _read(path: Path, agent: str | None = None) -> tuple[list[IngestRecord], MiniSweTrajectory]:
    reader = MiniSweTrajectory(agent, str(path))
    records, notes = read_path(path, LAYOUT, reader.feed)
    assert (notes.unpaired_calls, notes.orphan_results) == (0, 0)
    return records, reader


def test_a_tool_calling_run_pairs_its_calls_and_ends_with_the_submission() -> None:
    records, _ = _read(TOOL_CALLING)
    shown = [(r.message.kind, r.message.tool_call_id) for r in records]
    assert shown == [
        (Kind.SYSTEM, None),
        (Kind.USER, None),
        (Kind.ASSISTANT, None),
        (Kind.TOOL_CALL, "call_a1"),
        (Kind.TOOL_RESULT, "call_a1"),
        (Kind.TOOL_CALL, "call_a2"),
        (Kind.TOOL_RESULT, "call_a2"),
        (Kind.ASSISTANT, None),
        (Kind.TOOL_CALL, "call_a3"),
        (Kind.TOOL_RESULT, "call_a3"),
        (Kind.ASSISTANT, None),
    ]
    submission = json.loads(TOOL_CALLING.read_text())["info"]["submission"]
    assert records[-1].message.content == submission
    assert records[3].message.input == {"command": "cat calc.py"}
    assert records[6].message.is_error is True
    assert records[4].message.is_error is False
    assert {r.agent_id for r in records} == {"calc-div-zero"}
    assert records[2].message.created_at is not None
    assert records[2].message.created_at.isoformat() == "2026-03-14T09:20:05+00:00"


def test_a_text_based_run_reads_its_bash_blocks_as_calls() -> None:
    records, _ = _read(TEXT_BASED, "t")
    shown = [(r.message.kind, r.message.tool_call_id, r.message.continues_exchange) for r in records]
    assert shown == [
        (Kind.SYSTEM, None, False),
        (Kind.USER, None, False),
        (Kind.ASSISTANT, None, False),
        (Kind.TOOL_CALL, "action-1", False),
        (Kind.TOOL_RESULT, "action-1", False),
        (Kind.ASSISTANT, None, False),
        (Kind.USER, None, True),
        (Kind.ASSISTANT, None, False),
        (Kind.TOOL_CALL, "action-2", False),
        (Kind.TOOL_RESULT, "action-2", False),
        (Kind.ASSISTANT, None, False),
    ]
    assert records[3].message.input == {"command": "cat calc.py"}
    assert records[6].message.content.startswith("Please always provide EXACTLY ONE action")
    assert records[-1].message.content.startswith("diff --git a/calc.py")
    assert records[-2].message.content == "[Submitted]"


def test_a_run_that_ran_out_of_steps_ends_with_a_mark() -> None:
    document = {
        "info": {"exit_status": "LimitsExceeded", "submission": ""},
        "messages": [
            {"role": "user", "content": "Do the thing."},
            {
                "role": "assistant",
                "content": "```bash\nmake\n```",
                "extra": {"actions": [{"command": "make"}]},
            },
            {
                "role": "exit",
                "content": "LimitsExceeded",
                "extra": {"exit_status": "LimitsExceeded", "submission": ""},
            },
        ],
        "trajectory_format": "mini-swe-agent-1.1",
    }
    reader = MiniSweTrajectory("m", "run.traj.json")
    records, notes = read_bytes(json.dumps(document).encode(), "run.traj.json", LAYOUT, reader.feed)
    assert [(r.message.kind, r.message.content) for r in records[-2:]] == [
        (Kind.TOOL_RESULT, "[LimitsExceeded]"),
        (Kind.MARK, "exit: LimitsExceeded"),
    ]
    assert records[-2].message.is_error is True
    assert notes.unpaired_calls == 0


def test_a_responses_run_reads_its_saved_responses() -> None:
    document = {
        "info": {"exit_status": "Submitted", "submission": "patch"},
        "messages": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix it."}]},
            {
                "id": "resp_1",
                "object": "response",
                "output": [
                    {"type": "reasoning", "summary": []},
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": "Looking."}],
                    },
                    {
                        "type": "function_call",
                        "call_id": "fc_1",
                        "name": "bash",
                        "arguments": '{"command": "ls"}',
                    },
                ],
                "extra": {"actions": [{"command": "ls", "tool_call_id": "fc_1"}]},
            },
            {
                "type": "function_call_output",
                "call_id": "fc_1",
                "output": "calc.py",
                "extra": {"returncode": 0},
            },
            {
                "role": "exit",
                "content": "patch",
                "extra": {"exit_status": "Submitted", "submission": "patch"},
            },
        ],
        "trajectory_format": "mini-swe-agent-1.1",
    }
    reader = MiniSweTrajectory("r", "r.traj.json")
    records, _ = read_bytes(json.dumps(document).encode(), "r.traj.json", LAYOUT, reader.feed)
    assert [(r.message.kind, r.message.content) for r in records] == [
        (Kind.USER, "Fix it."),
        (Kind.ASSISTANT, "Looking."),
        (Kind.TOOL_CALL, ""),
        (Kind.TOOL_RESULT, "calc.py"),
        (Kind.ASSISTANT, "patch"),
    ]


def test_an_unknown_role_is_counted_not_dropped_silently() -> None:
    document = {"messages": [{"role": "user", "content": "x"}, {"role": "critic", "content": "y"}]}
    reader = MiniSweTrajectory("a", "a.traj.json")
    records, _ = read_bytes(json.dumps(document).encode(), "a.traj.json", LAYOUT, reader.feed)
    assert len(records) == 1
    assert dict(reader.unknown_types) == {"role critic": 1}
    assert reader.first_unknown["role critic"] == "a.traj.json:1 messages[1]"


def test_detection() -> None:
    document = json.loads(TOOL_CALLING.read_text())
    assert detect_mini_swe_agent(document)
    assert detect_mini_swe_agent(json.loads(TEXT_BASED.read_text()))
    assert detect_mini_swe_agent({"info": {"exit_status": "Submitted"}, "messages": []})
    assert detect_mini_swe_agent({"messages": [{"role": "user", "content": "hi"}]}) is None
    assert detect_mini_swe_agent({"trajectory": [], "history": []}) is None
    assert large_mini_swe_agent(Path("run.json"), TOOL_CALLING.read_bytes()[:2000])
    assert large_mini_swe_agent(Path("x.traj.json"), b"{")
    assert not large_mini_swe_agent(Path("x.json"), b'{"messages": []}')


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ({"content": "no role"}, "a message needs 'role' as a string, got null"),
        ({"role": "user", "content": 5}, "content must be a string or an array of parts, got number"),
        ({"role": "tool", "content": "out"}, "a tool message needs 'tool_call_id' as a string"),
        (
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c"}]},
            "tool_calls[0] needs 'id' and 'function'",
        ),
    ],
)
def test_a_malformed_message_is_one_line_naming_its_place(message: dict[str, object], reason: str) -> None:
    document = {"info": {}, "messages": [{"role": "user", "content": "task"}, message]}
    with pytest.raises(InvalidMessage) as caught:
        read_bytes(json.dumps(document).encode(), "x.traj.json", LAYOUT, MiniSweTrajectory("a", "x").feed)
    assert (caught.value.where, caught.value.reason) == ("x.traj.json:1 messages[1]", reason)


def test_a_document_that_is_not_json_is_named() -> None:
    with pytest.raises(InvalidMessage) as caught:
        read_bytes(b'{"info": {},\n "messages": [}', "x.traj.json", LAYOUT, MiniSweTrajectory("a", "x").feed)
    assert caught.value.where == "x.traj.json:2"
    assert caught.value.reason.startswith("invalid JSON")


def test_the_whole_file_reader_skips_a_bad_message_and_names_unknown_roles() -> None:
    document = {
        "messages": [
            {"role": "user", "content": "task"},
            {"role": "user", "content": 5},
            {"role": "critic", "content": "y"},
            {"role": "assistant", "content": "done"},
        ]
    }
    read_with, notes = reading()
    lines = lines_of(json.dumps(document).encode(), "run.traj.json")
    records = list(read_mini_swe_agent(lines, read_with))
    assert [(r.agent_id, r.message.content) for r in records] == [("run", "task"), ("run", "done")]
    assert notes.skipped == 2
    assert notes.warnings == [
        "run.traj.json:1 messages[1]: content must be a string or an array of parts, got number; skipped",
        "run.traj.json:1 messages[2]: 1 message(s) of unknown 'role critic' skipped",
    ]
    strict, _ = reading(strict=True)
    with pytest.raises(InvalidMessage, match="content must be a string"):
        list(read_mini_swe_agent(lines_of(json.dumps(document).encode(), "run.traj.json"), strict))
