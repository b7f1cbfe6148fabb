"""Cline task histories (`api_conversation_history.json`).

No Cline history published under a licence that allows copying it was found, so the two files in
tests/fixtures/cline/ are built by hand after the published format (see the README there): one in the
classic mode (XML tool tags in the assistant's text, each result header in its own text block), one with
native tool calls (`tool_use` blocks, results as headed text, `ts` on every message). The counts below
are those of the files, counted from the files in the tests that can.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.kinds import Kind
from summarizer.domain.window import WindowPlanner, WindowState
from summarizer.ingest import IngestRecord, ReadNotes, ReadOptions, iter_stream_records, read_records
from summarizer.ingest.detect import detect

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "cline"
CLASSIC = FIXTURES / "1741614385210" / "api_conversation_history.json"
NATIVE = FIXTURES / "1769587302114" / "api_conversation_history.json"
HEADER = re.compile(r"^\[\w+(?: for [^\n]*?)?\] Result:|^Tool \[\w+\] was not executed")
TASK = [{"type": "text", "text": "<task>\nfix it\n</task>"}]


def _texts(message: dict[str, Any]) -> list[str]:
    return [b["text"] for b in message["content"] if b["type"] == "text"]


def _exchanges(records: list[IngestRecord]) -> list[bool]:
    """Whether each exchange is complete, as the store's window planner decides it (budget 0: no
    eviction); the planner also refuses a result whose call is not in the same exchange."""
    planner = WindowPlanner(WindowState(budget=0), lambda _number: 0)
    at = datetime(2025, 1, 1, tzinfo=UTC)
    for record in records:
        at = record.message.created_at or at
        planner.add(record.message, 1, at)
    return [change.complete for _, change in sorted(planner.plan.exchanges.items())]


def _parse(messages: object, agent: str | None = "cline-task") -> list[IngestRecord]:
    data = json.dumps(messages).encode()
    strict = ReadOptions(strict=True)
    return list(iter_stream_records(io.BytesIO(data), "history.json", "cline", agent, 1_000_000, strict))


def _failure(messages: object) -> InvalidMessage:
    with pytest.raises(InvalidMessage) as caught:
        _parse(messages)
    return caught.value


def test_the_classic_history_pairs_each_xml_tool_call_with_the_result_the_next_message_holds() -> None:
    history = json.loads(CLASSIC.read_text(encoding="utf-8"))
    notes = ReadNotes()
    records = read_records(CLASSIC, "auto", None, 1_000_000, notes=notes)
    assert notes.detected.startswith("cline")
    kinds = Counter(r.message.kind for r in records)
    headers = [t for m in history if m["role"] == "user" for t in _texts(m) if HEADER.match(t)]
    speaking = ("[attempt_completion]", "[ask_followup_question")  # replies to the agent, not results
    assert len(history) == 26
    assert kinds[Kind.TOOL_RESULT] == len([h for h in headers if not h.startswith(speaking)]) == 10
    assert kinds[Kind.TOOL_CALL] == 10
    assert kinds[Kind.ASSISTANT] == 15
    assert kinds[Kind.USER] == 3
    marks = [r.message.content for r in records if r.message.kind is Kind.MARK]  # Cline's own notice
    assert [m.splitlines()[0] for m in marks] == [
        "[ERROR] You did not use a tool in your previous response! Please retry with a tool use."
    ]
    assert notes.unpaired_calls == 0
    calls = [r.message for r in records if r.message.kind is Kind.TOOL_CALL]
    results = [r.message for r in records if r.message.kind is Kind.TOOL_RESULT]
    assert [c.tool_call_id for c in calls] == [r.tool_call_id for r in results]
    assert calls[0].tool_call_id == "cline-1-1"
    assert (calls[0].name, calls[0].input) == ("read_file", {"path": "src/cli.ts"})
    assert calls[3].input == {"command": "npm test", "requires_approval": "false"}
    assert calls[2].input["diff"].startswith("<<<<<<< SEARCH\n  const files")
    assert [r.tool_call_id for r in results if r.is_error] == ["cline-9-1", "cline-19-2"]
    assert results[0].content.startswith('import { readFileSync } from "fs";')
    assert {r.agent_id for r in records} == {"1741614385210"}  # the task id: the file's folder
    assert all(r.message.created_at is None for r in records)  # this version wrote no `ts`
    assert not any("environment_details" in r.message.content for r in records)


def test_the_classic_history_opens_an_exchange_at_each_reply_of_the_user_and_each_one_completes() -> None:
    records = read_records(CLASSIC, "cline", None, 1_000_000)
    users = [r.message for r in records if r.message.kind is Kind.USER]
    assert [(u.starts_exchange, u.content.splitlines()[0]) for u in users] == [
        (
            True,
            "Add a --verbose flag to the tally CLI (src/cli.ts) that prints each file name with its "
            "word count before the total.",
        ),
        (True, "No, names and counts are enough"),
        (True, "Also document the flag in README.md. Attached is what I see when I run it."),
    ]
    assert users[2].content.endswith("\n[image]")
    assert _exchanges(records) == [True, True, True]
    said = [r.message.content for r in records if r.message.kind is Kind.ASSISTANT]
    assert said[8].startswith("Should --verbose also print how long each file took to count?")
    assert said[-1].startswith("Added a --verbose flag to the tally CLI, which prints each file")


def test_the_native_history_pairs_tool_use_blocks_with_headed_results_and_keeps_the_times() -> None:
    history = json.loads(NATIVE.read_text(encoding="utf-8"))
    notes = ReadNotes()
    records = read_records(NATIVE, "auto", None, 1_000_000, notes=notes)
    assert notes.detected.startswith("cline")
    kinds = Counter(r.message.kind for r in records)
    uses = [b for m in history for b in m["content"] if b["type"] == "tool_use"]
    answered = [b for m in history for b in m["content"] if b["type"] == "tool_result"]
    headers = [t for m in history if m["role"] == "user" for t in _texts(m) if HEADER.match(t)]
    assert len(history) == 20
    assert kinds[Kind.TOOL_CALL] == len([u for u in uses if u["name"] != "attempt_completion"]) == 11
    assert kinds[Kind.TOOL_RESULT] == len(answered) + len(headers) - 1 == 11  # less one completion reply
    assert kinds[Kind.ASSISTANT] == 8
    assert kinds[Kind.USER] == 3
    marks = [r.message.content for r in records if r.message.kind is Kind.MARK]
    assert [m.splitlines()[0] for m in marks] == [
        "# TODO LIST UPDATE REQUIRED - You MUST include the task_progress parameter in your NEXT tool call."
    ]
    assert notes.unpaired_calls == 0
    calls = [r.message for r in records if r.message.kind is Kind.TOOL_CALL]
    results = [r.message for r in records if r.message.kind is Kind.TOOL_RESULT]
    assert [c.tool_call_id for c in calls] == [r.tool_call_id for r in results]
    assert [c.tool_call_id for c in calls] == [u["id"] for u in uses if u["name"] != "attempt_completion"]
    assert [r.is_error for r in results].count(True) == 3  # not run, not found, interrupted
    assert {r.agent_id for r in records} == {"1769587302114"}
    first = records[0].message
    assert first.created_at == datetime.fromtimestamp(history[0]["ts"] / 1000, UTC)
    assert all(r.message.created_at is not None for r in records)
    assert not any("environment_details" in r.message.content for r in records)


def test_the_native_history_opens_exchanges_at_the_task_a_resumption_message_and_feedback() -> None:
    records = read_records(NATIVE, "cline", "shop", 1_000_000)
    users = [r.message for r in records if r.message.kind is Kind.USER]
    assert [(u.starts_exchange, u.content.splitlines()[0]) for u in users] == [
        (True, "The POST /api/orders endpoint returns 500 when the cart is empty. Find out why and fix it."),
        (True, "Skip the helper, formatCents is fine. Add a regression test for the empty cart instead."),
        (True, "Thanks. Does the invoice total have the same bug?"),
    ]
    # The first exchange was interrupted while a call waited: its last message is that call's result.
    assert _exchanges(records) == [False, True, True]
    assert {r.agent_id for r in records} == {"shop"}


def test_detection_needs_clines_markers_and_leaves_other_chat_arrays_alone() -> None:
    assert detect(CLASSIC.read_bytes(), "h.json").format == "cline"
    assert detect(NATIVE.read_bytes(), "h.json").format == "cline"
    plain = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert detect(json.dumps(plain).encode(), "h.json").format == "openai"
    result = [{"role": "user", "content": [{"type": "text", "text": "[read_file for 'a'] Result:\nx"}]}]
    assert detect(json.dumps(result).encode(), "h.json").format == "cline"


def test_a_speaking_tool_is_the_agents_words_and_an_untagged_plain_reply_opens_an_exchange() -> None:
    records = _parse(
        [
            {"role": "user", "content": TASK},
            {
                "role": "assistant",
                "content": "Plan ready.\n<plan_mode_respond>\n<response>Step 1</response>\n"
                "</plan_mode_respond>",
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "[plan_mode_respond] Result:\n[The user "
                        "has switched to ACT MODE, so you may now proceed with the task.]",
                    }
                ],
            },
            {"role": "assistant", "content": "Done."},
            {"role": "user", "content": "and now the docs"},
        ]
    )
    shown = [(r.message.kind.value, r.message.content, r.message.starts_exchange) for r in records]
    assert shown == [
        ("user", "fix it", True),
        ("assistant", "Plan ready.", False),
        ("assistant", "Step 1", False),
        ("user", "[The user has switched to ACT MODE, so you may now proceed with the task.]", True),
        ("assistant", "Done.", False),
        ("user", "and now the docs", True),
    ]


def test_feedback_beside_a_result_steers_the_exchange_and_feedback_on_a_completion_opens_one() -> None:
    def user(*texts: str) -> dict[str, Any]:
        return {"role": "user", "content": [{"type": "text", "text": t} for t in texts]}

    records = _parse(
        [
            {"role": "user", "content": TASK},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "execute_command",
                        "input": {"command": "rm -rf build"},
                    }
                ],
            },
            user(
                "The user provided the following feedback:\n<feedback>\nnot build, dist\n</feedback>",
                "[execute_command for 'rm -rf build'] Result:\nThe user denied this operation.",
            ),
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t2",
                        "name": "attempt_completion",
                        "input": {"result": "Removed dist."},
                    }
                ],
            },
            user(
                "[attempt_completion] Result: Done",
                "The user has provided feedback on the results. Consider their input to continue the task, "
                "and then attempt completion again.",
                "<feedback>\nand the cache\n</feedback>",
                "<environment_details>\n# Current Mode\nACT MODE\n</environment_details>",
            ),
        ]
    )
    shown = [(r.message.kind.value, r.message.content, r.message.starts_exchange) for r in records]
    assert shown == [
        ("user", "fix it", True),
        ("tool_call", "", False),
        ("tool_result", "The user denied this operation.", False),
        ("user", "not build, dist", False),
        ("assistant", "Removed dist.", False),
        ("user", "and the cache", True),
    ]


def test_native_tool_result_blocks_pair_by_id_and_unknown_tags_with_parameters_are_calls() -> None:
    records = _parse(
        [
            {"role": "user", "content": TASK},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "is_error": True,
                        "content": [{"type": "text", "text": "no such file"}],
                    }
                ],
            },
            {
                "role": "assistant",
                "content": "<my_tool>\n<x>1</x>\n</my_tool>\n<thinking><read_file>"
                "<path>b</path></read_file></thinking>",
            },
            {"role": "user", "content": "[my_tool] Result:\nok"},
        ]
    )
    shown = [
        (r.message.kind.value, r.message.tool_call_id, r.message.input, r.message.is_error) for r in records
    ]
    assert shown[1:] == [
        ("tool_call", "t1", {"path": "a"}, None),
        ("tool_result", "t1", None, True),
        ("tool_call", "cline-3-1", {"x": "1"}, None),
        ("assistant", None, None, None),
        ("tool_result", "cline-3-1", None, False),
    ]
    assert records[4].message.content == "<thinking><read_file><path>b</path></read_file></thinking>"


@pytest.mark.parametrize(
    ("messages", "reason"),
    [
        ({"role": "user"}, "missing 'content'"),
        ([{"role": "tool", "content": "x"}], "a message needs 'role' ('user' or 'assistant'), got 'tool'"),
        ([{"role": "user", "content": [{"text": "hi"}]}], "missing 'content[0].type'"),
        ([{"role": "user", "content": [{"type": "video"}]}], "content[0].type 'video' is unknown"),
        ([{"role": "user", "content": [{"type": "text"}]}], "missing 'content[0].text'"),
        ([{"role": "user", "content": 7}], "content must be a string or an array of content blocks"),
        ([{"role": "user", "content": "x", "ts": "yesterday"}], "ts must be a number of milliseconds"),
        ([{"role": "user", "content": "x", "ts": 1e20}], "ts 1e+20 is out of range"),
        (
            [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9", "content": "x"}]}],
            "content[0]: tool_use_id 't9' answers no tool_use of the message before",
        ),
        (
            [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "a", "name": "x", "input": {}}] * 2,
                }
            ],
            "tool call id 'a' appears twice in one assistant turn",
        ),
        ([{"role": "user", "content": "a\u0000b"}], "NUL byte in content"),
        ([1, 2], "expected a JSON object, got number"),
    ],
)
def test_hostile_input_is_refused_with_its_position_and_nothing_is_read(
    messages: object, reason: str
) -> None:
    error = _failure(messages)
    assert reason in str(error)
    assert str(error).startswith("history.json:")


def test_a_history_read_from_stdin_needs_an_agent() -> None:
    data = json.dumps([{"role": "user", "content": TASK}]).encode()
    with pytest.raises(InvalidMessage, match="pass --agent"):
        list(iter_stream_records(io.BytesIO(data), "-", "cline", None, 1_000_000, ReadOptions(strict=True)))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("filler", ["<x><y>", "<task>", "<feedback> ", "<read_file><path></path>x"])
def test_a_history_of_a_megabyte_of_unclosed_tags_is_read_without_hanging(filler: str) -> None:
    """Tag lookups go through an index of the closing tags: a text of many unclosed tags costs its length
    (it cost its length times its tags: minutes for a megabyte)."""
    text = filler * (1_000_000 // len(filler))
    history = [
        {"role": "user", "content": [{"type": "text", "text": f"<task>\nfix it\n</task> {text}"}]},
        {"role": "assistant", "content": [{"type": "text", "text": text}]},
    ]
    data = json.dumps(history).encode()
    records = list(
        iter_stream_records(
            io.BytesIO(data), "tasks/17/api_conversation_history.json", "cline", None, 4 << 20
        )
    )
    assert records[0].message.kind is Kind.USER


def test_a_result_whose_command_runs_over_several_lines_answers_its_call() -> None:
    command = "cat > notes.txt <<'EOF'\nfirst\nsecond\nEOF"
    history = [
        {"role": "user", "content": TASK},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "text",
                    "text": f"Writing.\n<execute_command>\n<command>{command}</command>\n</execute_command>",
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": f"[execute_command for '{command}'] Result:"},
                {"type": "text", "text": "Command executed."},
            ],
        },
    ]
    records = _parse(history)
    kinds = [(r.message.kind, r.message.content) for r in records]
    assert kinds[-2:] == [(Kind.TOOL_CALL, ""), (Kind.TOOL_RESULT, "Command executed.")]
    assert records[-1].message.tool_call_id == records[-2].message.tool_call_id
