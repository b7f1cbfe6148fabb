"""The provenance ledger on every backend: random runs partition the evicted set, poison exchanges are
dropped as unsummarizable with one alert, and rollback, diff and prune work on kept versions."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine.engine import EngineConfig, SummaryEngine
from summarizer.engine.ports import AnswerUnusable
from summarizer.llm.fake import FakeLLM
from summarizer.service.ledger import DROPPED, SUMMARIZED, ledger_entries
from summarizer.service.provenance import Provenance
from summarizer.service.results import Outcome
from summarizer.storage.port import EXCHANGE_UNSUMMARIZABLE, ProvenanceFacts, VersionWrite
from summarizer.testing.memory_store import InMemoryUpdateStore
from tests.contract.harness import ContractStore
from tests.contract.ledger_runs import random_run
from tests.contract.support import Clock, exchange, service


def _rebuild_flag(store: ContractStore) -> object:
    return store.agents["a"].rebuild_requested_at


def _facts(store: ContractStore) -> ProvenanceFacts:
    facts = store.provenance("a")
    return facts if facts is not None else ProvenanceFacts(None, ())


@pytest.mark.parametrize("seed", range(25))
def test_random_runs_keep_every_evicted_exchange_in_exactly_one_state(
    store: ContractStore, seed: int
) -> None:
    clock = Clock()
    llm = FakeLLM()
    svc = service(store, clock, llm)
    svc.engine = SummaryEngine(llm, ByteEstimateCounter(), EngineConfig(max_tokens=300 + 40 * (seed % 5)))
    svc.aging.engine = svc.engine

    def evict(ids: list[int], at: Any) -> None:
        store.evict("a", [exchange(i, at) for i in ids], clock())

    evicted, _ = random_run(seed, svc, llm, clock, evict, lambda: _facts(store), Provenance(store), 40)
    assert evicted


def test_the_random_runs_reach_every_reason() -> None:
    """A check on the generator itself (fresh fake stores, one per seed): its runs reach every reason."""
    seen: set[str] = set()
    for seed in range(25):
        store: ContractStore = InMemoryUpdateStore()
        clock = Clock()
        llm = FakeLLM()
        svc = service(store, clock, llm)
        svc.engine = SummaryEngine(llm, ByteEstimateCounter(), EngineConfig(max_tokens=300 + 40 * (seed % 5)))
        svc.aging.engine = svc.engine

        def evict(ids: list[int], at: Any, store: ContractStore = store, clock: Clock = clock) -> None:
            store.evict("a", [exchange(i, at) for i in ids], clock())

        _, reasons = random_run(seed, svc, llm, clock, evict, partial(_facts, store), Provenance(store), 40)
        seen |= reasons
    assert {"model", "aging", "unsummarizable", "rollback", "cap"} - seen == set()


def test_a_poison_exchange_is_split_out_dropped_once_with_one_alert_and_the_agent_goes_on(
    store: ContractStore,
) -> None:
    clock = Clock()
    poison = 3

    def answer(request: Any) -> Any:
        ids = [x.id for x in request.context.batch]
        if poison in ids:
            raise AnswerUnusable("the answer stopped at max_tokens", cause="max_tokens")
        from summarizer.llm.fake import default_answer

        return default_answer(request)

    llm = FakeLLM(script=[answer] * 20)
    store.evict("a", [exchange(i) for i in range(1, 7)], clock())
    svc = service(store, clock, llm)
    report = svc.drain("a")
    assert report.runs >= 3
    entries = {e.id: e for e in ledger_entries(_facts(store))}
    assert entries[poison].state == DROPPED
    assert entries[poison].reason == "unsummarizable"
    assert "max_tokens" in (entries[poison].detail or "")
    assert all(entries[i].state == SUMMARIZED for i in (1, 2, 4, 5, 6))
    assert [a.kind for a in store.alerts] == [EXCHANGE_UNSUMMARIZABLE]
    assert store.rows["a"].state != "failed"
    assert all(r.outcome == Outcome.OK.value for r in store.runs)


def test_rollback_diff_and_prune_on_kept_versions(store: ContractStore) -> None:
    clock = Clock()
    svc = service(store, clock)
    for start in (1, 4):
        store.evict("a", [exchange(i) for i in range(start, start + 3)], clock())
        svc.drain("a")
    p = Provenance(store, clock=clock)
    assert [v.summary.version for v in p.versions("a")] == [1, 2]
    d = p.diff("a", 1, 2)
    assert [i.exchange_ids for i in d.added] == [(4,), (5,), (6,)]
    assert not d.removed
    new = p.rollback("a", 1)
    assert new.version == 3
    entries = {e.id: e for e in ledger_entries(_facts(store))}
    assert {entries[i].reason for i in (4, 5, 6)} == {"rollback"}
    assert entries[1].state == SUMMARIZED
    assert p.prune(1, "a") == 2
    assert [v.summary.version for v in p.versions("a")] == [3]


def test_resummarize_rebuilds_from_the_stored_history_as_a_new_version(store: ContractStore) -> None:
    clock = Clock()
    llm = FakeLLM()
    svc = service(store, clock, llm)
    for start in (1, 4, 7):
        store.evict("a", [exchange(i) for i in range(start, start + 3)], clock())
        svc.drain("a")
    before = store.load_summary("a")
    assert before is not None
    assert before.version == 3
    p = Provenance(store, clock=clock)
    p.resummarize("a")
    assert store.agents["a"].rebuild_requested_at is not None
    calls = llm.calls
    svc.drain("a")
    after = store.load_summary("a")
    assert after is not None
    assert after.version == 4
    assert after.covered_through_exchange_id == before.covered_through_exchange_id
    assert llm.calls > calls
    assert _rebuild_flag(store) is None
    assert p.versions("a")[-1].made_by == "resummarize"
    entries = ledger_entries(_facts(store))
    assert {e.state for e in entries} == {SUMMARIZED}
    assert [e.id for e in entries] == list(range(1, 10))


def test_a_rebuild_that_loses_the_race_is_discarded_and_asked_again(store: ContractStore) -> None:
    clock = Clock()
    svc = service(store, clock)
    store.evict("a", [exchange(i) for i in (1, 2, 3)], clock())
    svc.drain("a")
    Provenance(store, clock=clock).resummarize("a")
    claimed = store.claim(clock(), 60, "a")
    assert claimed is not None
    current = store.load_summary("a")
    assert current is not None
    store.swap_summary(type(current)(agent_id="a", version=2, updated_at=clock()), 1, VersionWrite("aging"))
    from summarizer.storage.port import StaleSummary

    with pytest.raises(StaleSummary):
        svc.rebuilds.rebuild(svc.engine, claimed[0], claimed[1])  # type: ignore[arg-type]
    assert store.agents["a"].rebuild_requested_at is not None
