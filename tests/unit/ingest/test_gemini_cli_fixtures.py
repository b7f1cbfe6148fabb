"""Gemini CLI sessions: the real session files in the corpora's project-fixtures/gemini_cli (sources in its README), each
imported with the counts the file holds. The numbers were counted from the files themselves."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest.detect import HEAD_BYTES, detect
from tests.support.corpora import fixture_path
from tests.unit.ingest.helpers import assert_calls_answered_in_order, kind_counts, read_fixture

pytestmark = pytest.mark.usefixtures("corpora")

FIXTURES = fixture_path("gemini_cli")
POMODORO = FIXTURES / "gemini-cli-pomodoro-timer.json"
BENCHMARK = FIXTURES / "control_pro_run4_abandoned.json"


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.mark.parametrize("path", [POMODORO, BENCHMARK], ids=lambda p: p.name)
def test_detect_picks_gemini_cli_for_each_real_session(path: Path) -> None:
    assert detect(path.read_bytes()[:HEAD_BYTES], path.name).format == "gemini-cli"


@pytest.mark.parametrize("path", [POMODORO, BENCHMARK], ids=lambda p: p.name)
def test_every_tool_call_is_followed_by_its_own_result(path: Path) -> None:
    records, notes = read_fixture(path)
    assert_calls_answered_in_order(records, notes)  # and the file's timestamps never go back


def test_the_pomodoro_session_imports_with_the_counts_its_file_holds() -> None:
    records, notes = read_fixture(POMODORO)
    assert notes.detected.startswith("gemini-cli")
    assert kind_counts(records) == {
        Kind.USER: 5,  # 5 `user` messages, plain-string content: 5 exchanges
        Kind.ASSISTANT: 14,  # 14 `gemini` messages, each with text
        Kind.TOOL_CALL: 11,  # 11 toolCalls (3 write_file, 8 replace)
        Kind.TOOL_RESULT: 11,  # each recorded with its functionResponse
    }
    failed = [r.message for r in records if r.message.is_error]  # the one call with status "error"
    assert [m.tool_call_id for m in failed] == ["replace-1761077322005-e180d6d44397f"]
    assert failed[0].content.startswith("A secondary check by an LLM determined that no changes")
    assert {r.agent_id for r in records} == {"0b23371a-ce2e-4b1c-81a0-44af5d94d9ce"}  # the sessionId
    first, last = records[0].message, records[-1].message
    assert (first.kind, first.host_id) == (Kind.USER, "922467ec-b0f6-484a-915d-87504ac57d92")
    assert first.content.startswith("Build a simple Pomodoro timer web app")
    assert first.created_at == _at("2025-10-21T20:04:20.819Z")  # the first message, also the startTime
    assert (last.kind, last.created_at) == (Kind.ASSISTANT, _at("2025-10-21T20:08:49.642Z"))  # lastUpdated
    call = next(r.message for r in records if r.message.kind is Kind.TOOL_CALL)
    assert (call.tool_call_id, call.name) == ("write_file-1761077079637-de5db03a65079", "write_file")
    assert call.input["file_path"] == "/Users/yoavfarhi/dev/pomodoro/gemini/index.html"
    assert call.host_id == "e5679916-ec14-4bec-a6a3-53cf2b0e601b#write_file-1761077079637-de5db03a65079"


def test_the_benchmark_session_imports_with_the_counts_its_file_holds() -> None:
    records, notes = read_fixture(BENCHMARK)
    assert notes.detected.startswith("gemini-cli")
    assert kind_counts(records) == {
        Kind.USER: 2,  # 2 `user` messages, content as [{text}] parts: 2 exchanges
        Kind.ASSISTANT: 1,  # of 11 `gemini` messages only the first has text
        Kind.TOOL_CALL: 9,  # 9 `gemini` messages with one tool call each and empty content
        Kind.TOOL_RESULT: 9,  # all status "success"
    }
    assert not any(r.message.is_error for r in records)
    assert [r.message.content for r in records if r.message.kind is Kind.USER] == [
        "hello",
        "please read the task.md file",
    ]
    assert {r.agent_id for r in records} == {"95ee2bc8-b4a1-47fb-8db8-b0cfe91bee88"}  # the sessionId
    assert records[0].message.created_at == _at("2026-03-26T09:37:46.817Z")  # the startTime
    names = Counter(r.message.name for r in records if r.message.kind is Kind.TOOL_CALL)
    assert names == {"run_shell_command": 4, "write_file": 3, "read_file": 1, "grep_search": 1}
    # The last message (09:41:45.054Z, the lastUpdated) holds thoughts only: it adds no record.
    last = records[-1].message
    assert (last.kind, last.created_at) == (Kind.TOOL_RESULT, _at("2026-03-26T09:39:50.148Z"))
