"""What the real public logs of the corpora's project-fixtures show beyond their counts (tests/unit/ingest/test_fixture_corpus.py):
where a Claude Code interrupt lands, how parallel calls answered one by one are paired, how a Codex output
written as a JSON string with an exit code is stored, and how a single Anthropic response with server tool
blocks and cited text reads. The expected values were read from the files themselves (see their READMEs)."""

from __future__ import annotations

import json

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest import IngestRecord, ReadNotes, iter_stream_records
from tests.support.corpora import fixture_path

pytestmark = pytest.mark.usefixtures("corpora")

FIXTURES = fixture_path("")
CODEX_VSCODE = "codex/2025/09/24/rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl"


def read(name: str, agent: str | None = None) -> list[IngestRecord]:
    with (FIXTURES / name).open("rb") as stream:
        return list(iter_stream_records(stream, name, "auto", agent, 1_000_000, notes=ReadNotes()))


def kinds(records: list[IngestRecord]) -> list[Kind]:
    return [r.message.kind for r in records]


@pytest.mark.parametrize(
    ("name", "first_line_type"),
    [
        ("claude_code/snapshot_first_parallel_calls.jsonl", "file-history-snapshot"),
        ("claude_code/summary_first_parallel_calls.jsonl", "summary"),
        ("claude_code/queue_operation_first.jsonl", "queue-operation"),
    ],
)
def test_a_session_opening_with_a_bookkeeping_line_is_read_as_claude_code(
    name: str, first_line_type: str
) -> None:
    first = json.loads((FIXTURES / name).read_text(encoding="utf-8").splitlines()[0])
    assert first["type"] == first_line_type
    assert "message" not in first  # no conversation on the line detection sees first
    notes = ReadNotes()
    with (FIXTURES / name).open("rb") as stream:
        records = list(iter_stream_records(stream, name, "auto", None, 1_000_000, notes=notes))
    assert notes.detected.startswith("claude-code (")
    assert records
    assert records[0].message.kind is Kind.USER


def test_parallel_calls_answered_one_by_one_pair_each_result_with_its_own_call() -> None:
    records = read("claude_code/snapshot_first_parallel_calls.jsonl")
    U, A, C, R = Kind.USER, Kind.ASSISTANT, Kind.TOOL_CALL, Kind.TOOL_RESULT
    assert kinds(records) == [U, A, C, C, R, R, A, C, C, R, R, A]
    for call_at in (2, 7):
        first_call, second_call = records[call_at].message, records[call_at + 1].message
        first_result, second_result = records[call_at + 2].message, records[call_at + 3].message
        # Claude Code wrote the second call's result first; each is paired by its id, not its place.
        assert first_result.tool_call_id == second_call.tool_call_id
        assert second_result.tool_call_id == first_call.tool_call_id
    assert sum(r.message.starts_exchange for r in records) == 1
    assert Kind.REWIND not in kinds(records)


def test_an_interrupt_is_a_mark_in_the_exchange_it_stops() -> None:
    records = read("claude_code/interrupted_for_tool_use.jsonl")
    [at] = [i for i, r in enumerate(records) if r.message.kind is Kind.MARK]
    mark = records[at].message
    assert mark.content == "[Request interrupted by user for tool use]"
    assert not mark.starts_exchange
    assert records[at - 1].message.kind is Kind.TOOL_RESULT
    after = records[at + 1].message
    assert after.starts_exchange
    assert after.content == "fix the test, the code is right"
    prompts = [r.message.content for r in records if r.message.starts_exchange]
    assert prompts[-1] == "fix the test, the code is right"
    assert all("Request interrupted" not in p for p in prompts if p.startswith("["))


def test_codex_outputs_written_as_json_strings_are_stored_as_their_text_with_the_exit_code() -> None:
    records = read(CODEX_VSCODE)
    results = [r.message for r in records if r.message.kind is Kind.TOOL_RESULT]
    assert len(results) == 16
    assert not any(m.content.lstrip().startswith('{"output"') for m in results)
    failed = [m for m in results if m.is_error]
    assert [m.content.rsplit("\n", 1)[-1] for m in failed] == [
        "[exit code 2]",
        "[exit code 1]",
        "[exit code 1]",
    ]
    assert failed[0].content.startswith("bash: -c: line 0: syntax error near unexpected token `('")
    assert sum(1 for m in results if not m.is_error) == 13
    prompts = [r.message.content for r in records if r.message.starts_exchange]
    assert len(prompts) == 2
    assert all(p.startswith("# Context from my IDE setup:") for p in prompts)


def test_a_single_anthropic_response_keeps_its_web_search_and_its_cited_answer_whole() -> None:
    records = read("anthropic/web_search_response.json", agent="corpus")
    call, result, reply = (r.message for r in records)
    assert (call.kind, call.name, call.input) == (
        Kind.TOOL,
        "web_search",
        {"query": "San Francisco weather today"},
    )
    assert (result.kind, result.name) == (Kind.TOOL, "web_search_tool_result")
    assert call.tool_call_id == result.tool_call_id == "srvtoolu_01EoSNE7k4dUJyGatASCV5qs"
    lines = result.content.splitlines()
    assert len(lines) == 10
    assert all(line.endswith(">") and "<https://" in line for line in lines)
    assert reply.kind is Kind.ASSISTANT
    # The answer's text blocks are one text: a cited passage continues the line it was cut from.
    assert "- Temperature: 66°F with clear skies" in reply.content
    assert "- \nTemperature" not in reply.content


def test_a_swe_agent_trajectory_holding_only_its_history_is_detected_and_read_whole() -> None:
    name = "swe_agent/function_calling_simple.traj"
    assert list(json.loads((FIXTURES / name).read_text(encoding="utf-8"))) == ["history"]
    notes = ReadNotes()
    with (FIXTURES / name).open("rb") as stream:
        records = list(iter_stream_records(stream, name, "auto", None, 1_000_000, notes=notes))
    assert notes.detected.startswith("swe-agent (")
    assert "only its history" in notes.detected
    calls = [r.message for r in records if r.message.kind is Kind.TOOL_CALL]
    results = [r.message for r in records if r.message.kind is Kind.TOOL_RESULT]
    assert [c.name for c in calls] == ["find_file", "open", "edit", "bash", "submit"]
    assert [r.tool_call_id for r in results] == [c.tool_call_id for c in calls]
    assert {r.agent_id for r in records} == {"function_calling_simple"}
