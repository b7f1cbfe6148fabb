"""SWE-agent's last trajectory step, which `history` lacks or holds without its observation: it is read from
the `trajectory`, once. Hand-made trajectories after SWE-agent's published layouts, and the real ones."""

from __future__ import annotations

import io
import json
from collections import Counter
from typing import Any

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest import IngestRecord, ReadNotes, iter_stream_records, read_records
from tests.support.corpora import corpus_path

PATCH = "diff --git a/app.py b/app.py\n+    return 1\n"


def _step(thought: str, action: str, observation: str | None) -> dict[str, Any]:
    return {
        "thought": thought,
        "action": action,
        "observation": observation,
        "response": thought,
        "state": "{}",
    }


def _fc_call(call_id: str, name: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def _function_calling(*, with_last: bool) -> dict[str, Any]:
    """Two steps (open, then submit) in the function-calling layout; `with_last`: history holds submit too."""
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "You are an autonomous programmer."},
        {"role": "user", "content": "Fix the bug in app.py"},
        {"role": "assistant", "content": "Let me open it.", "tool_calls": [_fc_call("call_a", "open")]},
        {"role": "tool", "content": "1: def f():", "tool_call_ids": ["call_a"]},
    ]
    if with_last:
        history += [
            {"role": "assistant", "content": "Submitting.", "tool_calls": [_fc_call("call_b", "submit")]},
            {"role": "tool", "content": PATCH, "tool_call_ids": ["call_b"]},
        ]
    steps = [_step("Let me open it.", "open app.py", "1: def f():"), _step("Submitting.", "submit", PATCH)]
    return {"environment": "swe_main", "trajectory": steps, "history": history, "info": {"submission": PATCH}}


def _older(final_observation: str) -> dict[str, Any]:
    """Two steps in the older layout, a demonstration first; history never shows the last observation."""
    history = [
        {"role": "system", "content": "SETTING: a terminal"},
        {"role": "user", "content": "Here is a demonstration", "is_demo": True},
        {"role": "assistant", "content": "A demo action", "action": "ls", "is_demo": True},
        {"role": "user", "content": "Fix the bug in app.py"},
        {"role": "assistant", "content": "Let me look.\n```\nopen app.py\n```", "action": "open app.py\n"},
        {"role": "user", "content": "1: def f():"},
        {"role": "assistant", "content": "Done.\n```\nsubmit\n```", "action": "submit\n"},
    ]
    steps = [
        _step("Let me look.", "open app.py\n", "1: def f():"),
        _step("Done.", "submit\n", final_observation),
    ]
    return {"environment": "swe_main", "trajectory": steps, "history": history, "info": {}}


def _read(document: object, notes: ReadNotes | None = None) -> list[IngestRecord]:
    data = json.dumps(document).encode()
    return list(iter_stream_records(io.BytesIO(data), "run.traj", "auto", "run", 1_000_000, notes=notes))


def _shape(records: list[IngestRecord]) -> list[tuple[Kind, str | None]]:
    return [(r.message.kind, r.message.tool_call_id) for r in records]


def test_a_last_step_history_leaves_out_is_read_from_the_trajectory_after_the_step_before_it() -> None:
    notes = ReadNotes()
    records = _read(_function_calling(with_last=False), notes)
    assert _shape(records) == [
        (Kind.SYSTEM, None),
        (Kind.USER, None),
        (Kind.ASSISTANT, None),
        (Kind.TOOL_CALL, "call_a"),
        (Kind.TOOL_RESULT, "call_a"),
        (Kind.ASSISTANT, None),
        (Kind.TOOL_CALL, "action-2"),
        (Kind.TOOL_RESULT, "action-2"),
    ]
    call, result = records[-2].message, records[-1].message
    assert (call.name, call.input) == ("submit", {"command": "submit"})
    assert result.content == PATCH
    assert result.where == "run.traj:1 trajectory[1]"
    assert (notes.unpaired_calls, notes.orphan_results, notes.skipped) == (0, 0, 0)


def test_a_last_step_history_holds_too_is_recorded_once() -> None:
    records = _read(_function_calling(with_last=True))
    kinds = Counter(r.message.kind for r in records)
    assert (kinds[Kind.ASSISTANT], kinds[Kind.TOOL_CALL], kinds[Kind.TOOL_RESULT]) == (2, 2, 2)
    assert [r.message.content for r in records if r.message.kind is Kind.TOOL_RESULT] == [
        "1: def f():",
        PATCH,
    ]


def test_the_older_layout_takes_the_last_observation_the_patch_from_the_trajectory() -> None:
    notes = ReadNotes()
    records = _read(_older(PATCH), notes)
    kinds = Counter(r.message.kind for r in records)
    assert kinds[Kind.SYSTEM] == 3  # the system prompt and the demonstration's two messages
    assert (kinds[Kind.USER], kinds[Kind.ASSISTANT], kinds[Kind.TOOL_CALL], kinds[Kind.TOOL_RESULT]) == (
        1,
        2,
        2,
        2,
    )
    assert _shape(records[-3:]) == [
        (Kind.ASSISTANT, None),
        (Kind.TOOL_CALL, "action-2"),
        (Kind.TOOL_RESULT, "action-2"),
    ]
    assert records[-1].message.content == PATCH
    assert notes.unpaired_calls == 0


def test_a_blank_last_observation_is_no_result_and_the_call_stays_waiting() -> None:
    notes = ReadNotes()
    records = _read(_older(""), notes)
    assert _shape(records[-2:]) == [(Kind.ASSISTANT, None), (Kind.TOOL_CALL, "action-2")]
    assert notes.unpaired_calls == 1


def test_a_one_step_trajectory_follows_the_issue() -> None:
    document = _function_calling(with_last=False)
    document["history"] = document["history"][:2]
    document["trajectory"] = document["trajectory"][1:]
    records = _read(document)
    assert _shape(records) == [
        (Kind.SYSTEM, None),
        (Kind.USER, None),
        (Kind.ASSISTANT, None),
        (Kind.TOOL_CALL, "action-1"),
        (Kind.TOOL_RESULT, "action-1"),
    ]


def test_a_trajectory_that_is_not_a_list_of_steps_is_named_and_history_is_read_alone() -> None:
    document = _function_calling(with_last=False)
    document["trajectory"] = [1]
    notes = ReadNotes()
    records = _read(document, notes)
    assert len([r for r in records if r.message.kind is Kind.TOOL_CALL]) == 1
    assert notes.warnings == ["run.traj:1 trajectory: trajectory[0] must be an object, got number; skipped"]


CORPUS = [
    ("agent-logs-3/sweagent_pydicom_1458.traj", (12, 12, 12), 0),
    ("agent-logs-3/sweagent_ctf_warmup.traj", (7, 7, 6), 1),  # the final submit's observation is blank
    ("agent-logs-2/sweagent_marshmallow_function_calling.traj", (11, 11, 11), 0),
]


@pytest.mark.usefixtures("corpora")
@pytest.mark.parametrize(("path", "counts", "waiting"), CORPUS, ids=[c[0] for c in CORPUS])
def test_real_trajectories_keep_their_final_submission(
    path: str, counts: tuple[int, int, int], waiting: int
) -> None:
    notes = ReadNotes()
    records = read_records(corpus_path(path), "auto", "run", 10_000_000, notes=notes)
    kinds = Counter(r.message.kind for r in records)
    assert (kinds[Kind.ASSISTANT], kinds[Kind.TOOL_CALL], kinds[Kind.TOOL_RESULT]) == counts
    assert notes.unpaired_calls == waiting
    last_call = [r.message for r in records if r.message.kind is Kind.TOOL_CALL][-1]
    assert last_call.name == "submit"
