"""The run recorder: one call for each way an attempt ends, each filling the record's columns alike."""

from __future__ import annotations

from datetime import timedelta

from summarizer.engine.model import Summary
from summarizer.service.poison import Folded, GivenUp
from summarizer.service.results import Outcome
from summarizer.service.runs import Attempt, RunRecorder
from tests.contract.support import T0, exchange

LATER = T0 + timedelta(seconds=5)
runs = RunRecorder("host:1")


def test_a_failed_attempt_records_its_batch_the_version_it_started_from_and_the_error() -> None:
    summary = Summary(agent_id="a", version=4, updated_at=T0)
    batch = [exchange(7), exchange(8), exchange(9)]
    run = runs.failed(Attempt.on("a", T0, summary), Outcome.RETRY, LATER, "boom", batch)
    assert (run.agent_id, run.outcome, run.worker, run.error) == ("a", "retry", "host:1", "boom")
    assert (run.started_at, run.finished_at, run.from_version) == (T0, LATER, 4)
    assert (run.exchange_count, run.first_exchange_id, run.last_exchange_id) == (3, 7, 9)
    assert run.to_version is None
    assert run.llm_input_tokens == 0


def test_an_attempt_on_an_agent_without_a_summary_starts_from_version_zero() -> None:
    run = runs.paused(Attempt.on("a", T0, None), LATER, "provider down", [exchange(1)])
    assert (run.outcome, run.from_version, run.exchange_count) == ("paused", 0, 1)


def test_a_parked_row_without_an_attempt_starts_and_ends_at_once_with_no_batch() -> None:
    run = runs.parked("a", LATER, "lease expired")
    assert (run.outcome, run.started_at, run.finished_at) == ("parked", LATER, LATER)
    assert (run.from_version, run.exchange_count, run.first_exchange_id) == (None, 0, None)


def test_an_exchange_given_up_on_is_ok_with_its_cause_and_the_refused_answers_cost() -> None:
    x = exchange(3)
    folded = Folded(
        (x,),
        None,
        GivenUp(x, "no visible text"),
        unusable_input_tokens=120,
        unusable_output_tokens=30,
        unusable_model="model-a",
    )
    run = runs.ok(Attempt("a", T0), LATER, folded)
    assert (run.outcome, run.error, run.from_version, run.to_version) == ("ok", "no visible text", None, None)
    assert (run.llm_input_tokens, run.llm_output_tokens, run.model) == (120, 30, "model-a")
    assert (run.first_exchange_id, run.last_exchange_id) == (3, 3)
