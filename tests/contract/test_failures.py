"""Retry, park, alert and rescue, on every backend (the in-memory fake, SQLite, PostgreSQL)."""

from __future__ import annotations

from summarizer.domain.queue_states import FAILED, PENDING, RUNNING
from summarizer.engine.ports import LLMPermanentError, LLMTransientError
from summarizer.llm.fake import FakeLLM
from summarizer.service.results import Outcome
from summarizer.storage.values import LEASE_EXPIRED_ERROR, SUMMARY_UPDATES_FAILING
from tests.contract.harness import ContractStore
from tests.contract.support import Clock, exchange, service


def _fed(store: ContractStore, clock: Clock) -> ContractStore:
    store.evict("a", [exchange(i) for i in (1, 2, 3)], clock())
    return store


def test_a_transient_failure_backs_off_then_succeeds(store: ContractStore) -> None:
    clock = Clock()
    _fed(store, clock)
    svc = service(store, clock, FakeLLM([LLMTransientError("overloaded", status=529)]))
    result = svc.run("a")
    assert result.outcome is Outcome.RETRY
    row = store.rows["a"]
    assert (row.state, row.consecutive_failures, row.priority) == (PENDING, 1, 1)
    assert row.available_at > clock()
    assert svc.run("a").outcome is Outcome.NOTHING  # not due yet
    clock.now = row.available_at
    assert svc.run("a").outcome is Outcome.OK
    assert [r.outcome for r in store.runs] == ["retry", "ok"]
    assert store.rows["a"].consecutive_failures == 0


def test_a_permanent_failure_parks_at_once_with_one_alert_resolved_by_the_next_success(
    store: ContractStore,
) -> None:
    clock = Clock()
    _fed(store, clock)
    svc = service(store, clock, FakeLLM([LLMPermanentError("bad request", status=400)]))
    assert svc.run("a").outcome is Outcome.PARKED
    assert store.rows["a"].state == FAILED
    assert [(a.kind, a.agent_id, a.resolved_at) for a in store.alerts] == [
        (SUMMARY_UPDATES_FAILING, "a", None)
    ]
    store.evict("a", [exchange(4)], clock())
    assert store.rows["a"].state == FAILED  # more input does not wake a parked row
    assert svc.requeue("a") == FAILED
    assert svc.run("a").outcome is Outcome.OK
    assert store.alerts[0].resolved_at == clock()
    assert len(store.alerts) == 1


def test_repeated_transient_failures_park_past_max_retries_and_alert_once(store: ContractStore) -> None:
    clock = Clock()
    _fed(store, clock)
    errors = [LLMTransientError("overloaded", status=529) for _ in range(6)]
    svc = service(store, clock, FakeLLM(errors))
    outcomes = []
    for _ in range(3):
        outcomes.append(svc.run("a").outcome)
        clock.now = store.rows["a"].available_at
    assert outcomes == [Outcome.RETRY, Outcome.RETRY, Outcome.PARKED]
    assert svc.requeue("a") == FAILED
    for _ in range(3):
        svc.run("a")
        clock.now = store.rows["a"].available_at
    assert store.rows["a"].state == FAILED
    assert len(store.alerts) == 1  # the incident is still open: no second alert


def test_rescue_takes_back_an_expired_lease_and_parks_past_max_retries(store: ContractStore) -> None:
    clock = Clock()
    _fed(store, clock)
    svc = service(store, clock, lease_seconds=30)
    for attempt in range(1, 4):
        assert store.claim(clock(), 30, "a") is not None  # a worker that dies holding the row
        clock.advance(31)
        rescued = svc.rescue()
        assert [(r.agent_id, r.consecutive_failures) for r in rescued] == [("a", attempt)]
    assert rescued[0].parked
    assert store.rows["a"].state == FAILED
    assert store.rows["a"].last_error == LEASE_EXPIRED_ERROR
    assert [r.outcome for r in store.runs] == ["parked"]
    assert len(store.alerts) == 1


def test_a_claim_past_max_retries_of_dead_attempts_parks_instead_of_running(store: ContractStore) -> None:
    clock = Clock()
    _fed(store, clock)
    llm = FakeLLM()
    svc = service(store, clock, llm, lease_seconds=30)
    for _ in range(3):
        assert store.claim(clock(), 30, "a") is not None
        clock.advance(31)
    assert store.rows["a"].state == RUNNING
    result = svc.run("a")  # takes over the expired lease: the third dead attempt
    assert result.outcome is Outcome.PARKED
    assert llm.calls == 0
    assert len(store.alerts) == 1
