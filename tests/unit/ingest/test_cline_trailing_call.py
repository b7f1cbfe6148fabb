"""A Cline history saved while its last call was still waiting (the real agentlogs task, copied by that
very command): every other call is paired, and the one left open is the last message's."""

from __future__ import annotations

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest.cline import LAYOUT, ClineTask
from tests.support.corpora import corpus_path
from tests.unit.ingest.document_reads import read_path

pytestmark = pytest.mark.usefixtures("corpora")

HISTORY = corpus_path("agent-logs-2/cline_agentlogs_api_conversation_history.json")


def test_only_the_call_of_the_last_message_is_left_waiting() -> None:
    task = ClineTask("agentlogs", str(HISTORY))
    records, notes = read_path(HISTORY, LAYOUT, task.feed)
    calls = [r.message for r in records if r.message.kind is Kind.TOOL_CALL]
    results = {r.message.tool_call_id for r in records if r.message.kind is Kind.TOOL_RESULT}
    assert (len(calls), len(results)) == (37, 36)
    assert [c.tool_call_id for c in calls if c.tool_call_id not in results] == [
        "toolu_01Mvs6pTgsTX8eQcfTDLGC1o"
    ]
    assert records[-1].message.tool_call_id == "toolu_01Mvs6pTgsTX8eQcfTDLGC1o"
    assert records[-1].message.where is not None
    assert records[-1].message.where.endswith("[41]")
    assert task.pending == [("toolu_01Mvs6pTgsTX8eQcfTDLGC1o", "execute_command")]
    assert (notes.unpaired_calls, notes.orphan_results) == (1, 0)
