"""`resummarize` over the in-memory fake (the SQL backends are tested in
tests/integration/test_resummarize_spend.py): a rebuild that fails or is interrupted partway keeps the
summary and records what its calls spent, and one a spent budget sends offline raises the agent's alert
once a day."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from summarizer.domain.prices import ModelPrice, default_table
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine.engine import SummaryEngine
from summarizer.engine.ports import LLMAnswer, LLMRequest
from summarizer.llm.fake import FAKE_MODEL, FakeLLM, default_answer, fault
from summarizer.llm.offline import OfflineLLM
from summarizer.service.cost_budgets import BudgetPolicy, CostBudgets
from summarizer.service.provenance import Provenance
from summarizer.service.results import Outcome, WorkerConfig
from summarizer.service.runs import REBUILD_PATH
from summarizer.service.update import UpdateService
from summarizer.storage.cost_port import BUDGET_PATH, COST_BUDGET
from summarizer.testing.memory_costs import MemoryCostStore
from summarizer.testing.memory_store import InMemoryUpdateStore
from tests.contract.support import T0, Clock, exchange

AGENT = "a"


def _wired(llm: FakeLLM) -> tuple[InMemoryUpdateStore, MemoryCostStore, UpdateService, Clock]:
    store, clock = InMemoryUpdateStore(), Clock(T0)
    costs = MemoryCostStore(store)
    table = default_table().with_prices({FAKE_MODEL: ModelPrice(*(Decimal(1),) * 4)})
    engine = SummaryEngine(llm, ByteEstimateCounter())
    service = UpdateService(
        store,
        engine,
        WorkerConfig(batch_size=1, max_batch_exchanges=1, follow_on_seconds=0),
        clock=clock,
        rng=random.Random(7),
        fallback=engine.with_llm(OfflineLLM()),
        budgets=CostBudgets(costs, table, BudgetPolicy()),
    )
    for x in range(1, 5):
        store.evict(AGENT, [exchange(x)], clock())
    service.drain()
    Provenance(store, clock=clock).resummarize(AGENT)
    return store, costs, service, clock


@pytest.mark.parametrize("stop", [fault("server"), KeyboardInterrupt()], ids=["model-error", "interrupted"])
def test_a_rebuild_stopped_on_its_third_batch_records_the_two_before(stop: BaseException) -> None:
    llm = FakeLLM(faults={7: stop})  # four updates, then the rebuild's calls 5, 6 and 7
    store, _, service, _ = _wired(llm)
    assert llm.calls == 4
    version, updates = store.load_summary(AGENT), len(store.runs)
    if isinstance(stop, Exception):
        assert service.run(AGENT).outcome is Outcome.RETRY
    else:
        with pytest.raises(KeyboardInterrupt):
            service.run(AGENT)
    assert llm.calls == 7
    (record,) = store.runs[updates:]
    assert (record.path, record.model, record.exchange_count) == (REBUILD_PATH, FAKE_MODEL, 2)
    assert record.llm_input_tokens > 0
    assert record.llm_output_tokens == 2 * 50
    assert store.load_summary(AGENT) == version
    assert store.agents[AGENT].rebuild_requested_at is not None  # asked again


def test_a_rebuild_whose_claim_was_taken_over_before_it_failed_still_records_its_spend() -> None:
    llm = FakeLLM()
    store, _, service, clock = _wired(llm)
    updates = len(store.runs)

    def taken_over_then_failing(request: LLMRequest) -> LLMAnswer:
        clock.advance(3600)  # the rebuild outlived its lease: another worker claims the row
        assert store.claim(clock(), 60, AGENT) is not None
        raise fault("server")

    llm.push(default_answer, default_answer, taken_over_then_failing)
    assert service.run(AGENT).outcome is Outcome.LOST
    (record,) = store.runs[updates:]
    assert (record.outcome, record.path, record.model) == ("lost", REBUILD_PATH, FAKE_MODEL)
    assert record.llm_output_tokens == 2 * 50
    assert (record.error or "").startswith("LLMTransientError")


def test_a_rebuild_sent_offline_by_a_spent_budget_raises_the_alert_once_a_day() -> None:
    store, costs, service, clock = _wired(FakeLLM())
    assert costs.set_cost_budget(AGENT, 0)
    service.drain()
    assert [r.path for r in store.runs[4:]] == [BUDGET_PATH] * 4
    alerts = [a for a in store.alerts if a.kind == COST_BUDGET]
    assert [(a.agent_id, a.resolved_at) for a in alerts] == [(AGENT, None)]
    Provenance(store, clock=clock).resummarize(AGENT)
    store.evict(AGENT, [exchange(5)], clock())
    service.drain()
    assert [a for a in store.alerts if a.kind == COST_BUDGET] == alerts
