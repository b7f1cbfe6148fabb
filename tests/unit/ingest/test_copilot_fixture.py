"""GitHub Copilot agent transcript: the real Copilot CLI event stream in the corpora's project-fixtures/copilot (source in
its README), imported without `--format` with the counts the file holds. The numbers were counted from the
file itself (its JSON read line by line outside this code), not by the reader under test."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest.detect import HEAD_BYTES, detect
from tests.support.corpora import fixture_path
from tests.unit.ingest.helpers import kind_counts, read_fixture

pytestmark = pytest.mark.usefixtures("corpora")

TRANSCRIPT = fixture_path("copilot/session.jsonl")
FAILED_CALLS = [
    "call_MXxZUnE3ZDFwRGhYOTRndk1SR2M",
    "call_MnxKVXFBYVdEaUhlT2FKQ1pIczg",
    "call_M3xYbTRSN2FoeWRRbTJEWVRkMno",
]


def test_detect_picks_copilot_for_the_real_transcript() -> None:
    # Its first line is a `session.warning` notice, not `session.start`.
    assert detect(TRANSCRIPT.read_bytes()[:HEAD_BYTES], TRANSCRIPT.name).format == "copilot"


def test_the_transcript_imports_with_the_counts_its_file_holds() -> None:
    records, notes = read_fixture(TRANSCRIPT)
    assert notes.detected.startswith("copilot")
    assert kind_counts(records) == {
        Kind.USER: 1,  # the one typed `user.message` (line 8): one exchange
        Kind.SYSTEM: 1,  # the `user.message` the tool injected (line 66, source "instruction-discovery")
        Kind.ASSISTANT: 1,  # of 7 `assistant.message` events only the last (line 97) has text
        Kind.TOOL_CALL: 17,  # 17 toolRequests: view 7, report_intent 6, bash 2, edit 1, create 1
        Kind.TOOL_RESULT: 17,  # 17 tool.execution_complete, each answering one of them
    }
    calls = [r.message for r in records if r.message.kind is Kind.TOOL_CALL]
    assert Counter(m.name for m in calls) == {
        "view": 7,
        "report_intent": 6,
        "bash": 2,
        "edit": 1,
        "create": 1,
    }
    results = [r.message for r in records if r.message.kind is Kind.TOOL_RESULT]
    assert sorted(str(m.tool_call_id) for m in results) == sorted(
        str(m.tool_call_id) for m in calls
    )  # paired
    failed = [m for m in results if m.is_error]
    assert [m.tool_call_id for m in failed] == FAILED_CALLS
    assert {m.content for m in failed} == {"Path does not exist"}
    assert (notes.unpaired_calls, notes.orphan_results, notes.clamped_times, notes.skipped) == (0, 0, 0, 0)
    # No session.start: the agent is the file's name (a session's events.jsonl: its folder's name).
    assert {r.agent_id for r in records} == {"session"}


def test_each_message_keeps_its_event_id_and_time() -> None:
    records, _notes = read_fixture(TRANSCRIPT)
    first, last = records[0].message, records[-1].message
    assert (first.kind, first.host_id) == (Kind.USER, "0bb137c2-6a57-4753-9b39-9a2aef95fb92")
    assert first.content.startswith("Benchmark run. Ignore any installed or cached copies of skills")
    assert first.created_at == datetime(2026, 6, 19, 0, 17, 51, 10000, tzinfo=UTC)
    assert (last.kind, last.host_id) == (Kind.ASSISTANT, "1e7eef72-23c0-46f9-a394-e3c12179397d")
    assert last.content.startswith("I have completed the benchmark run.")
    # The first assistant.message (line 12) holds three requests and no text: three calls, ids ID#1..#3.
    batch = [r.message for r in records[1:4]]
    assert [m.host_id for m in batch] == [f"d4edf5e8-143b-43b2-ab2b-9d12413cb752#{n}" for n in (1, 2, 3)]
    assert [m.name for m in batch] == ["report_intent", "bash", "view"]
    assert batch[1].input["description"] == "Copy fixture repo to outputs"
    injected = next(r.message for r in records if r.message.kind is Kind.SYSTEM)
    assert injected.content.lstrip().startswith("<system_reminder>")
    assert all(r.message.created_at is not None and r.message.host_id for r in records)
