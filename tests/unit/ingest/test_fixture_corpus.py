"""Every real public file the project once kept in tests/fixtures (now read from the corpora), and the
hand-written Cline histories, of the formats read since before aider and Copilot, read as
`summarizer ingest` reads it (no `--format`), against counts written down from reading each file.

How each count was read from the file (by hand and with a JSON viewer, not with this package):
- claude-code: main-chain `user`/`assistant` lines and their content blocks (tool_use, tool_result, text);
  a `compact_boundary` system line is a clear; the one prompt whose parentUuid is not the line before it
  is the rewind. `sidechain_integrated`: 3 main-chain lines (a Task call, its result, the answer), the
  sub-agent's lines are skipped.
- codex: `response_item` payloads: 4 developer messages plus the 2 injected user messages
  (`<environment_context>`, AGENTS.md) are system, the one user message matching the `user_message` event
  is the prompt; function_call / function_call_output items; reasoning left out.
- gemini-cli: `user` messages, `gemini` messages with text (the abandoned run has 10 of 11 without), and
  each `toolCalls` entry (a call and its result).
- opencode: non-synthetic text parts of user and assistant messages, and `tool` parts.
- swe-agent: system prompt and demonstrations, the issue, each action (call) and its observation; the
  older layout's last action (`submit`) has no observation. `function_calling_simple` holds only its `history` (no
  `trajectory`): the system prompt, the issue, five `tool_calls` and the five `tool` messages naming them.
- openhands: user messages, the agent's messages and its `finish`, each tool-call action's thought and
  call, and the observation answering it.
- cline, responses, sharegpt: the messages, tool calls and results each file's README describes.
- tau-bench: the `kind` of each line.
- the Claude Code 2.x sessions (read with a throwaway script over the raw lines, and by eye): bookkeeping
  lines (`file-history-snapshot`, `summary`, `queue-operation`, `progress`, `system`) and `isMeta` lines
  left out; each `tool_use` block a call and each `tool_result` block a result (all ids paired); assistant
  lines with text are one reply per line; a user line of plain text is a prompt, except the interrupt note
  (a mark), `/clear` (a clear) and `<local-command-stdout>` (a command). No prompt names as its parent a
  line of the file other than the one before it, so none is a rewind.
- the Codex VS Code rollout: the `<environment_context>` user item is system, the two user items each
  followed by their `user_message` event are the prompts, sixteen function_call / function_call_output
  pairs, two assistant messages.
- the Anthropic response: its `server_tool_use` and `web_search_tool_result` blocks (tool activity) and
  one reply from its text blocks; thinking left out.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest import IngestRecord, ReadNotes, iter_stream_records
from tests.support.corpora import fixture_path

FIXTURES = fixture_path("")
HAND_WRITTEN = Path(__file__).resolve().parents[2] / "fixtures"
"""The Cline histories are the project's own (tests/fixtures/cline); every other file is a real public log."""
U, A, S, C, R = Kind.USER, Kind.ASSISTANT, Kind.SYSTEM, Kind.TOOL_CALL, Kind.TOOL_RESULT

CORPUS: list[tuple[str, str, dict[Kind, int], int, int]] = [
    # (file, detected format, messages per kind, exchanges, calls no result answered)
    (
        "claude_code/compact_after_rewind.jsonl",
        "claude-code",
        {U: 6, A: 5, Kind.CLEAR: 1, Kind.REWIND: 1},
        6,
        0,
    ),
    ("claude_code/sidechain_integrated.jsonl", "claude-code", {C: 1, R: 1, A: 1}, 0, 0),
    ("claude_code/snapshot_first_parallel_calls.jsonl", "claude-code", {U: 1, A: 3, C: 4, R: 4}, 1, 0),
    ("claude_code/summary_first_parallel_calls.jsonl", "claude-code", {U: 2, A: 4, C: 5, R: 5}, 2, 0),
    ("claude_code/queue_operation_first.jsonl", "claude-code", {U: 1, A: 1, C: 1, R: 1}, 1, 0),
    (
        "claude_code/interrupted_for_tool_use.jsonl",
        "claude-code",
        {U: 4, A: 5, C: 7, R: 7, Kind.MARK: 1},
        4,
        0,
    ),
    (
        "claude_code/after_clear_command.jsonl",
        "claude-code",
        {Kind.CLEAR: 1, Kind.COMMAND: 1, U: 2, A: 2, C: 4, R: 4},
        2,
        0,
    ),
    (
        "codex/2025/09/24/rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl",
        "codex",
        {S: 1, U: 2, A: 2, C: 16, R: 16},
        2,
        0,
    ),
    (
        "codex/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl",
        "codex",
        {S: 6, U: 1, A: 17, C: 118, R: 118},
        1,
        0,
    ),
    (
        "codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl",
        "codex",
        {S: 6, U: 1, A: 6, C: 5, R: 5},
        1,
        0,
    ),
    ("gemini_cli/control_pro_run4_abandoned.json", "gemini-cli", {U: 2, A: 1, C: 9, R: 9}, 2, 0),
    ("gemini_cli/gemini-cli-pomodoro-timer.json", "gemini-cli", {U: 5, A: 14, C: 11, R: 11}, 5, 0),
    (
        "opencode/session__nimble-pixel__ses_39b4c1891ffezxPVc5OPmcqF33.json",
        "opencode",
        {U: 2, A: 1, C: 4, R: 4},
        2,
        0,
    ),
    (
        "opencode/session__quiet-meadow__ses_39c0a3da8ffeFQWvKTGUJWivpv.json",
        "opencode",
        {U: 6, A: 2, C: 37, R: 37},
        6,
        0,
    ),
    ("openhands/basic.json", "openhands", {U: 1, A: 2, C: 1, R: 1}, 1, 0),
    ("openhands/basic_interactions.json", "openhands", {U: 3, A: 3}, 3, 0),
    ("swe_agent/6e44b9__sweagenttestrepo-1c2844.traj", "swe-agent", {S: 1, U: 1, A: 5, C: 5, R: 5}, 1, 0),
    ("swe_agent/swe-agent__test-repo-i1.traj", "swe-agent", {S: 2, U: 1, A: 5, C: 5, R: 5}, 1, 0),
    ("swe_agent/function_calling_simple.traj", "swe-agent", {S: 1, U: 1, A: 5, C: 5, R: 5}, 1, 0),
    (
        "cline/1741614385210/api_conversation_history.json",
        "cline",
        {U: 3, Kind.MARK: 1, A: 15, C: 10, R: 10},
        3,
        0,
    ),
    (
        "cline/1769587302114/api_conversation_history.json",
        "cline",
        {U: 3, Kind.MARK: 1, A: 8, C: 11, R: 11},
        3,
        0,
    ),
    ("anthropic/web_search_response.json", "anthropic", {Kind.TOOL: 2, A: 1}, 0, 0),
    ("responses/reasoning_response.json", "responses", {A: 1}, 0, 0),
    ("responses/weather_function_call.jsonl", "responses", {U: 1, A: 1, C: 1, R: 1}, 1, 0),
    ("sharegpt/glaive_toolcall_en_demo.json", "sharegpt", {U: 3, A: 3, C: 3, R: 3}, 3, 0),
    ("tau_bench_airline.jsonl", "canonical", {U: 244, A: 219, C: 144, R: 144}, 244, 0),
]
NEEDS_AGENT = ("responses", "sharegpt", "anthropic")
"""Formats whose files name no agent: read with `--agent`."""


def path_of(name: str) -> Path:
    return (HAND_WRITTEN if name.startswith("cline/") else FIXTURES) / name


def read(name: str, fmt: str) -> tuple[list[IngestRecord], ReadNotes]:
    notes = ReadNotes()
    agent = "corpus" if fmt in NEEDS_AGENT else None
    path = path_of(name)
    with path.open("rb") as stream:
        records = list(iter_stream_records(stream, name, "auto", agent, 1_000_000, notes=notes))
    return records, notes


@pytest.mark.usefixtures("corpora")
def test_the_corpus_holds_every_real_fixture_of_these_formats() -> None:
    """A fixture added later for one of these formats must be added to the corpus too."""
    listed = {name for name, *_ in CORPUS if not name.startswith("cline/")}
    present = {
        str(p.relative_to(FIXTURES))
        for p in FIXTURES.rglob("*")
        if p.suffix in (".json", ".jsonl", ".traj")
        and p.relative_to(FIXTURES).parts[0] not in ("aider", "copilot")
    }
    assert present == listed


@pytest.mark.usefixtures("corpora")
@pytest.mark.parametrize(
    ("name", "fmt", "kinds", "exchanges", "unanswered"), CORPUS, ids=[c[0] for c in CORPUS]
)
def test_each_real_fixture_reads_as_published_without_a_format(
    name: str, fmt: str, kinds: dict[Kind, int], exchanges: int, unanswered: int
) -> None:
    records, notes = read(name, fmt)
    assert notes.detected.startswith(f"{fmt} (")
    assert Counter(r.message.kind for r in records) == Counter(kinds)
    assert sum(r.message.starts_exchange for r in records) == exchanges
    assert (notes.skipped, notes.orphan_results, notes.warnings) == (0, 0, [])
    assert notes.unpaired_calls == unanswered
    _assert_every_result_answers_a_call_of_its_exchange(records)


@pytest.mark.usefixtures("corpora")
@pytest.mark.parametrize("name", [c[0] for c in CORPUS], ids=[c[0] for c in CORPUS])
def test_each_real_fixture_read_again_names_the_same_messages(name: str) -> None:
    """Importing a file again stores nothing: every message has a host id, unique in its agent, and a
    second read derives the same ones."""
    fmt = next(c[1] for c in CORPUS if c[0] == name)
    first = [(r.agent_id, r.message.host_id) for r in read(name, fmt)[0]]
    second = [(r.agent_id, r.message.host_id) for r in read(name, fmt)[0]]
    assert all(host_id for _, host_id in first)
    assert len(set(first)) == len(first)
    assert second == first


def _assert_every_result_answers_a_call_of_its_exchange(records: list[IngestRecord]) -> None:
    calls: dict[str, set[str]] = {}
    for record in records:
        message = record.message
        if message.starts_exchange:
            calls[record.agent_id] = set()
        open_calls = calls.setdefault(record.agent_id, set())
        if message.kind is Kind.TOOL_CALL:
            assert message.tool_call_id
            open_calls.add(message.tool_call_id)
        elif message.kind is Kind.TOOL_RESULT:
            assert message.tool_call_id in open_calls, message.where
