"""tau-bench results files: a JSON array of task results, each run's `traj` its own conversation."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.kinds import Kind
from summarizer.ingest.formats.tau_bench import FORMAT
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.sequencing import ReadNotes, sequence
from summarizer.ingest.tau_bench import tau_bench_results
from tests.support.corpora import corpus_path
from tests.unit.ingest.document_reads import lines_of, reading

RESULTS = corpus_path("agent-logs-1/tau_gpt4o_airline_15.json")


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _result(task_id: int, trial: int, user_id: str) -> dict[str, Any]:
    """One task result after tau-bench's published layout; both runs reuse the call id `call_1`."""
    return {
        "task_id": task_id,
        "reward": 1.0,
        "info": {"task": {"user_id": user_id}},
        "traj": [
            {"role": "system", "content": "# Airline Agent Policy"},
            {"role": "user", "content": "Please cancel my reservation."},
            {"role": "assistant", "content": None, "tool_calls": [_call("call_1", "get_user_details", "{}")]},
            {"role": "tool", "tool_call_id": "call_1", "name": "get_user_details", "content": "{}"},
            {"role": "assistant", "content": "Your reservation is cancelled."},
            {"role": "user", "content": "###STOP###"},
        ],
        "trial": trial,
    }


def _read(
    data: bytes, agent: str | None = None, *, strict: bool = False
) -> tuple[list[IngestRecord], ReadNotes]:
    with_reading, notes = reading(agent, strict=strict)
    read = FORMAT.read(lines_of(data, "results.json"), with_reading)
    return list(sequence(read, notes, strict_time=False, derive_ids=True)), notes


def test_each_task_result_is_a_conversation_of_its_own_in_order() -> None:
    data = json.dumps([_result(0, 0, "mia_li_3668"), _result(7, 2, "ivan_muller_7015")]).encode()
    records, notes = _read(data)
    run = [Kind.SYSTEM, Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT, Kind.USER]
    assert [r.message.kind for r in records] == run + run
    assert [r.agent_id for r in records] == ["tau-bench/task-0-trial-0"] * 6 + [
        "tau-bench/task-7-trial-2"
    ] * 6
    assert [r.message.tool_call_id for r in records if r.message.tool_call_id] == ["call_1"] * 4
    assert records[2].message.input == {}
    assert records[2].message.name == "get_user_details"
    assert records[1].message.where == "results.json:1 [0] traj[1]"
    assert records[7].message.where == "results.json:1 [1] traj[1]"
    assert (notes.unpaired_calls, notes.orphan_results, notes.skipped) == (0, 0, 0)


def test_agent_names_the_runs_and_a_result_without_a_task_id_is_named_by_its_place() -> None:
    nameless = _result(0, 0, "x")
    del nameless["task_id"], nameless["trial"]
    records, _ = _read(json.dumps([_result(3, 0, "x"), nameless]).encode(), "airline")
    assert sorted({r.agent_id for r in records}) == ["airline/2", "airline/task-3-trial-0"]


def test_a_result_whose_traj_cannot_be_read_is_skipped_and_named_or_refused_under_strict() -> None:
    broken = _result(1, 0, "x")
    broken["traj"][2]["tool_calls"] = "get_user_details"
    data = json.dumps([broken, _result(2, 0, "y")]).encode()
    records, notes = _read(data)
    assert {r.agent_id for r in records} == {"tau-bench/task-2-trial-0"}
    assert notes.skipped == 1
    assert notes.warnings == ["results.json:1 [0]: traj[2]: tool_calls must be an array, got string; skipped"]
    with pytest.raises(InvalidMessage, match=r"traj\[2\]: tool_calls must be an array"):
        _read(data, strict=True)


def test_the_recognizer_takes_task_results_and_nothing_else() -> None:
    result = _result(0, 0, "x")
    assert tau_bench_results([result]) is not None
    assert tau_bench_results(result) is not None  # one result a line (JSON Lines)
    assert tau_bench_results(result["traj"]) is None  # one traj alone: a plain chat array
    assert tau_bench_results([{"conversations": []}]) is None
    assert tau_bench_results({"trajectory": [], "history": []}) is None
    assert tau_bench_results([{"traj": [{"action": "x"}], "task_id": 1}]) is None
    assert tau_bench_results([{"traj": []}]) is None  # no key of a task result beside it
    assert tau_bench_results([]) is None


@pytest.mark.usefixtures("corpora")
def test_the_published_gpt4o_airline_results_are_read_whole() -> None:
    records, notes = _read(Path(RESULTS).read_bytes(), "corpus")
    kinds = Counter(r.message.kind for r in records)
    assert (kinds[Kind.USER], kinds[Kind.ASSISTANT], kinds[Kind.TOOL_CALL], kinds[Kind.TOOL_RESULT]) == (
        140,
        131,
        101,
        101,
    )
    assert kinds[Kind.SYSTEM] == 15  # the policy, once a run
    assert len({r.agent_id for r in records}) == 15
    assert (notes.unpaired_calls, notes.orphan_results, notes.skipped) == (0, 0, 0)
    assert tau_bench_results(json.loads(Path(RESULTS).read_text(encoding="utf-8"))) is not None
