"""OpenHands trajectories: OpenHands' own published test trajectories."""

from __future__ import annotations

from collections import Counter

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest import ReadNotes, read_records
from tests.support.corpora import fixture_path

pytestmark = pytest.mark.usefixtures("corpora")

FIXTURES = fixture_path("openhands")


def test_a_tool_call_and_its_observation_are_paired_by_the_call_id() -> None:
    notes = ReadNotes()
    records = read_records(FIXTURES / "basic.json", "auto", None, 1_000_000, notes=notes)
    assert notes.detected.startswith("openhands")
    shown = [(r.message.kind, r.message.tool_call_id, r.message.host_id) for r in records]
    call = "toolu_017nBp7UfiGqyrA7j77HgtFP"
    assert shown == [
        (Kind.USER, None, "0"),
        (Kind.ASSISTANT, None, "3#1"),
        (Kind.TOOL_CALL, call, "3#2"),
        (Kind.TOOL_RESULT, call, "4"),
        (Kind.ASSISTANT, None, "5"),
    ]
    edit = records[2].message
    assert edit.name == "str_replace_editor"
    assert isinstance(edit.input, dict)
    assert edit.input["command"] == "create"
    assert records[3].message.content.startswith("--- /workspace/game_2048.py")
    assert notes.unpaired_calls == 0
    assert {r.agent_id for r in records} == {"basic"}
    assert str(records[0].message.created_at) == "2025-01-27 22:44:56.900854+00:00"


def test_a_conversation_of_messages_keeps_each_turn() -> None:
    records = read_records(FIXTURES / "basic_interactions.json", "openhands", "oh", 1_000_000)
    kinds = Counter(r.message.kind for r in records)
    assert (kinds[Kind.USER], kinds[Kind.ASSISTANT], len(records)) == (3, 3, 6)
    assert records[-1].message.content == "All done! What's next on the agenda?"
