"""SWE-agent trajectories: the two published test trajectories of SWE-agent, in both layouts."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest import ReadNotes, read_records
from tests.support.corpora import fixture_path

pytestmark = pytest.mark.usefixtures("corpora")

FIXTURES = fixture_path("swe_agent")
CALLING = FIXTURES / "6e44b9__sweagenttestrepo-1c2844.traj"
OLDER = FIXTURES / "swe-agent__test-repo-i1.traj"


def test_the_function_calling_layout_pairs_every_call_by_its_id() -> None:
    history = json.loads(CALLING.read_text(encoding="utf-8"))["history"]
    notes = ReadNotes()
    records = read_records(CALLING, "auto", None, 1_000_000, notes=notes)
    assert notes.detected.startswith("swe-agent")
    kinds = Counter(r.message.kind for r in records)
    assert kinds[Kind.SYSTEM] == 1
    assert kinds[Kind.USER] == 1  # the issue: one exchange
    # history holds four steps; the fifth, submit, is in the trajectory alone
    assert sum(len(m.get("tool_calls") or []) for m in history) == 4
    assert kinds[Kind.TOOL_CALL] == kinds[Kind.TOOL_RESULT] == kinds[Kind.ASSISTANT] == 5
    calls = [r.message for r in records if r.message.kind is Kind.TOOL_CALL]
    results = [r.message for r in records if r.message.kind is Kind.TOOL_RESULT]
    assert [c.tool_call_id for c in calls] == [r.tool_call_id for r in results]
    assert (calls[-1].tool_call_id, calls[-1].name) == ("action-5", "submit")
    assert "diff --git a/tests/missing_colon.py" in results[-1].content
    assert results[-1].where is not None
    assert results[-1].where.endswith("trajectory[4]")
    assert calls[0].name == "find_file"
    assert calls[0].input == {"file_name": "missing_colon.py"}
    assert notes.unpaired_calls == 0
    assert {r.agent_id for r in records} == {CALLING.stem}


def test_the_older_layout_takes_each_observation_as_the_result_of_the_action_before_it() -> None:
    history = json.loads(OLDER.read_text(encoding="utf-8"))["history"]
    notes = ReadNotes()
    records = read_records(OLDER, "auto", "swe-run", 1_000_000, notes=notes)
    kinds = Counter(r.message.kind for r in records)
    actions = [m for m in history if m["role"] == "assistant"]
    assert kinds[Kind.SYSTEM] == 2  # the system prompt and the demonstration
    assert kinds[Kind.USER] == 1
    assert kinds[Kind.ASSISTANT] == len(actions) == 5
    assert kinds[Kind.TOOL_CALL] == 5
    assert kinds[Kind.TOOL_RESULT] == 5  # the last one, submit's patch, from the trajectory
    assert notes.unpaired_calls == 0
    last = [r.message for r in records[-2:]]
    assert [m.kind for m in last] == [Kind.TOOL_CALL, Kind.TOOL_RESULT]
    assert last[1].content.startswith("\ndiff --git a/tests/missing_colon.py")
    first_call = next(r.message for r in records if r.message.kind is Kind.TOOL_CALL)
    assert (first_call.name, first_call.input) == ("find_file", {"command": 'find_file "missing_colon.py"'})
    assert {r.agent_id for r in records} == {"swe-run"}
