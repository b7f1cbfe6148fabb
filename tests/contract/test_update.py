"""The update service's claim, batch and commit, on every backend (the in-memory fake, SQLite, PostgreSQL)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from summarizer.domain.queue_states import IDLE, PENDING, RUNNING
from summarizer.llm.fake import FakeLLM
from summarizer.service.results import Outcome
from summarizer.storage.port import LostClaim, StaleSummary, UpdateCommit, VersionWrite
from tests.contract.harness import ContractStore
from tests.contract.support import Clock, exchange, service


def test_a_full_batch_is_folded_once_and_the_row_goes_idle(store: ContractStore) -> None:
    clock = Clock()
    store.evict("a", [exchange(i) for i in (1, 2, 3)], clock())
    result = service(store, clock).run("a")
    assert (result.outcome, result.version, result.exchanges) == (Outcome.OK, 1, 3)
    assert store.folded("a") == {1: 1, 2: 1, 3: 1}
    assert store.rows["a"].state == IDLE
    assert store.agents["a"].unsummarized == 0
    assert [(r.outcome, r.from_version, r.to_version, r.exchange_count) for r in store.runs] == [
        ("ok", 0, 1, 3)
    ]
    summary = store.load_summary("a")
    assert summary is not None
    assert summary.covered_through_exchange_id == 3


def test_a_batch_still_filling_hands_the_row_back_idle(store: ContractStore) -> None:
    clock = Clock()
    store.evict("a", [exchange(1), exchange(2)], clock())
    result = service(store, clock).run("a")
    assert result.outcome is Outcome.IDLE
    assert store.rows["a"].state == IDLE
    assert store.folded("a") == {1: None, 2: None}


def test_a_small_batch_is_flushed_once_it_waited_past_the_max_wait(store: ContractStore) -> None:
    clock = Clock()
    store.evict("a", [exchange(1)], clock())
    svc = service(store, clock, batch_max_wait=60)
    assert svc.run("a").outcome is Outcome.IDLE
    assert svc.due() == []
    clock.advance(61)
    assert svc.due() == ["a"]  # the dispatcher re-armed the idle row
    assert svc.run("a").outcome is Outcome.OK
    assert store.folded("a") == {1: 1}


def test_the_batch_is_bounded_by_input_tokens_and_the_rest_stays_due(store: ContractStore) -> None:
    clock = Clock()
    store.evict("a", [exchange(i, tokens=100) for i in range(1, 7)], clock())
    svc = service(store, clock, max_batch_input_tokens=250)
    first = svc.run("a")
    assert (first.outcome, first.exchanges, first.requeued) == (Outcome.OK, 2, True)
    assert store.rows["a"].state == PENDING
    second = svc.run("a")
    assert (second.outcome, second.exchanges, second.requeued) == (Outcome.OK, 2, False)
    assert store.rows["a"].state == IDLE  # two left: fewer than a batch, they wait for more or the max wait
    assert store.agents["a"].unsummarized == 2
    assert list(store.folded("a").values()) == [1, 1, 2, 2, None, None]


def test_evictions_during_an_update_leave_the_row_pending(store: ContractStore) -> None:
    clock = Clock()
    store.evict("a", [exchange(i) for i in (1, 2, 3)], clock())
    llm = FakeLLM()
    svc = service(store, clock, llm)

    def evict_meanwhile(request: object) -> object:
        store.evict("a", [exchange(i) for i in (4, 5, 6)], clock())
        from summarizer.llm.fake import default_answer

        return default_answer(request)  # type: ignore[arg-type]

    llm.push(evict_meanwhile)  # type: ignore[arg-type]
    result = svc.run("a")
    assert (result.outcome, result.requeued) == (Outcome.OK, True)
    assert svc.run("a").version == 2
    assert set(store.folded("a").values()) == {1, 2}


def test_a_summary_moved_meanwhile_discards_the_result_and_requeues(store: ContractStore) -> None:
    clock = Clock()
    store.evict("a", [exchange(i) for i in (1, 2, 3)], clock())
    svc = service(store, clock)
    first = svc.run("a")
    assert first.version == 1
    store.evict("a", [exchange(i) for i in (4, 5, 6)], clock())
    claimed = store.claim(clock(), 60, "a")
    assert claimed is not None
    claim, state = claimed
    assert state is not None
    assert state.summary is not None
    moved = state.summary
    store.swap_summary(type(moved)(agent_id="a", version=2, updated_at=clock()), 1, VersionWrite("aging"))
    store.release(claim, clock(), "test")
    result = svc.run("a")
    assert result.outcome is Outcome.STALE
    assert result.requeued
    assert store.rows["a"].state == PENDING
    assert store.folded("a")[4] is None  # nothing of the discarded result was written


@pytest.mark.parametrize("guard", ["lost", "stale", "folded"])
def test_a_failed_commit_guard_writes_nothing(store: ContractStore, guard: str) -> None:
    clock = Clock()
    store.evict("a", [exchange(i) for i in (1, 2, 3)], clock())
    svc = service(store, clock)
    svc.run("a")
    store.evict("a", [exchange(i) for i in (4, 5, 6)], clock())
    claimed = store.claim(clock(), 60, "a")
    assert claimed is not None
    claim, state = claimed
    assert state is not None
    assert state.summary is not None
    commit = UpdateCommit(
        claim=claim,
        summary=type(state.summary)(
            agent_id="a", version=2, covered_through_exchange_id=6, updated_at=clock()
        ),
        from_version=1,
        first_exchange_id=4,
        last_exchange_id=6,
        exchange_count=3,
        run=store.runs[0],
        batch_size=3,
        now=clock(),
    )
    if guard == "lost":
        commit = replace(commit, claim=replace(claim, token="x"))
    elif guard == "stale":
        commit = replace(commit, from_version=0)
    else:
        commit = replace(commit, last_exchange_id=5)
    before = (dict(store.folded("a")), store.agents["a"].unsummarized, len(store.runs))
    with pytest.raises(LostClaim if guard == "lost" else StaleSummary):
        store.commit(commit)
    assert (dict(store.folded("a")), store.agents["a"].unsummarized, len(store.runs)) == before
    assert store.rows["a"].state == RUNNING
    store.commit(replace(commit, claim=claim, from_version=1, last_exchange_id=6))
    assert store.folded("a")[6] == 2


def test_a_late_duplicate_wake_up_claims_nothing(store: ContractStore) -> None:
    clock = Clock()
    store.evict("a", [exchange(i) for i in (1, 2, 3)], clock())
    svc = service(store, clock)
    assert svc.run("a").outcome is Outcome.OK
    assert svc.run("a").outcome is Outcome.NOTHING
    assert svc.run_backlog("a", or_any=True).outcome is Outcome.NOTHING
    assert len(store.runs) == 1


def test_an_expired_lease_is_taken_over_and_the_late_commit_is_lost(store: ContractStore) -> None:
    clock = Clock()
    store.evict("a", [exchange(i) for i in (1, 2, 3)], clock())
    llm = FakeLLM()
    svc = service(store, clock, llm, lease_seconds=30)
    takeover: list[Outcome] = []

    def slow(request: object) -> object:
        clock.advance(31)
        takeover.append(service(store, clock, lease_seconds=30).run("a").outcome)
        from summarizer.llm.fake import default_answer

        return default_answer(request)  # type: ignore[arg-type]

    llm.push(slow)  # type: ignore[arg-type]
    result = svc.run("a")
    assert takeover == [Outcome.OK]
    assert result.outcome is Outcome.LOST
    assert set(store.folded("a").values()) == {1}
    assert clock() - store.runs[0].finished_at < timedelta(seconds=1)
