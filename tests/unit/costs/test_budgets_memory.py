"""Daily budgets over the in-memory fake (the SQL backends are tested in tests/integration): the fleet's
budget, the default budget an agent's own one overrides, one alert per day, and the day's turn."""

from __future__ import annotations

import random
from datetime import timedelta
from decimal import Decimal

from summarizer.domain.prices import ModelPrice, default_table
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine.engine import SummaryEngine
from summarizer.llm.fake import FAKE_MODEL, FakeLLM
from summarizer.llm.offline import OfflineLLM
from summarizer.service.cost_budgets import BudgetPolicy, CostBudgets
from summarizer.service.results import WorkerConfig
from summarizer.service.update import UpdateService
from summarizer.storage.cost_port import BUDGET_PATH, COST_BUDGET
from summarizer.testing.memory_costs import MemoryCostStore
from summarizer.testing.memory_store import InMemoryUpdateStore
from tests.contract.support import T0, Clock, exchange

ONE_DOLLAR = ModelPrice(Decimal(1), Decimal(1), Decimal(1), Decimal(1))


def _wired(
    policy: BudgetPolicy,
) -> tuple[InMemoryUpdateStore, MemoryCostStore, UpdateService, Clock, FakeLLM]:
    store, clock, llm = InMemoryUpdateStore(), Clock(T0), FakeLLM()
    costs = MemoryCostStore(store)
    table = default_table().with_prices({FAKE_MODEL: ONE_DOLLAR})
    engine = SummaryEngine(llm, ByteEstimateCounter())
    service = UpdateService(
        store,
        engine,
        WorkerConfig(batch_size=1, max_batch_exchanges=1, follow_on_seconds=0),
        clock=clock,
        rng=random.Random(7),
        fallback=engine.with_llm(OfflineLLM()),
        budgets=CostBudgets(costs, table, policy),
    )
    return store, costs, service, clock, llm


def _paths(store: InMemoryUpdateStore, agent_id: str) -> list[str | None]:
    return [r.path for r in store.runs if r.agent_id == agent_id]


def _open_budget_alerts(store: InMemoryUpdateStore) -> list[str | None]:
    return [a.agent_id for a in store.alerts if a.kind == COST_BUDGET and a.resolved_at is None]


def test_a_spent_fleet_budget_sends_every_agent_offline_with_one_fleet_alert_until_the_day_turns() -> None:
    store, _, service, clock, llm = _wired(BudgetPolicy(fleet_micros=1, fleet_cache_seconds=0))
    store.evict("a", [exchange(1)], clock())
    service.drain()
    assert _paths(store, "a") == ["append"]  # nothing was spent before it
    store.evict("b", [exchange(1), exchange(2)], clock())
    store.evict("a", [exchange(2)], clock())
    service.drain()
    assert _paths(store, "b") == [BUDGET_PATH, BUDGET_PATH]
    assert _paths(store, "a") == ["append", BUDGET_PATH]
    assert store.folded("b") == {1: 1, 2: 2}  # degraded, never dropped
    assert _open_budget_alerts(store) == [None]  # one alert, the fleet's
    assert len(llm.requests) == 1

    clock.now = T0.replace(hour=0, minute=1) + timedelta(days=1)
    store.evict("b", [exchange(3)], clock())
    service.drain()
    assert _paths(store, "b")[-1] == "append"
    assert _open_budget_alerts(store) == []
    assert len(llm.requests) == 2


def test_the_default_budget_applies_unless_the_agent_has_its_own_and_its_alert_ends_with_the_day() -> None:
    store, costs, service, clock, llm = _wired(BudgetPolicy(agent_micros=0))
    store.evict("rich", [exchange(1)], clock())
    store.evict("poor", [exchange(1)], clock())
    assert costs.set_cost_budget("rich", 5_000_000)
    assert not costs.set_cost_budget("nobody", 1)
    service.drain()
    assert _paths(store, "rich") == ["append"]
    assert _paths(store, "poor") == [BUDGET_PATH]
    store.evict("poor", [exchange(2)], clock())
    clock.advance(3600)
    service.drain()
    assert _paths(store, "poor") == [BUDGET_PATH, BUDGET_PATH]
    assert _open_budget_alerts(store) == ["poor"]  # one alert for the day, not one per update
    assert len(llm.requests) == 1

    clock.now = T0 + timedelta(days=1)
    service.age_page("")  # the beat's daily sweep: the poor agent is idle, its alert still ends
    assert _open_budget_alerts(store) == []
    store.evict("poor", [exchange(3)], clock())
    service.drain()
    assert _paths(store, "poor")[-1] == BUDGET_PATH  # a budget of $0 stays spent on the new day
    assert _open_budget_alerts(store) == ["poor"]
    assert sum(1 for a in store.alerts if a.kind == COST_BUDGET) == 2  # one per day
