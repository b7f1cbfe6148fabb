"""The window `cost --since` and `GET /v1/cost?since=` report over (one definition, `Costs.recent`), and
the per-model totals the Prometheus counters show, over the in-memory fake."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from summarizer.domain.prices import ModelPrice, default_table
from summarizer.service.cost_budgets import BudgetPolicy
from summarizer.service.costs import UNRECORDED, Costs
from summarizer.storage.values import RunRecord
from summarizer.testing.memory_costs import MemoryCostStore
from summarizer.testing.memory_store import InMemoryUpdateStore
from tests.contract.support import T0

ONE_DOLLAR = ModelPrice(Decimal(1), Decimal(1), Decimal(1), Decimal(1))


def _costs(*finished: tuple[timedelta, str | None]) -> Costs:
    store = InMemoryUpdateStore()
    for n, (ago, model) in enumerate(finished):
        end = T0 - ago
        store.runs.append(
            RunRecord(f"agent-{n % 2}", end, end, "ok", llm_input_tokens=1_000_000, model=model)
        )
    table = default_table().with_prices({"m": ONE_DOLLAR})
    return Costs(MemoryCostStore(store), table, BudgetPolicy())


def test_the_last_window_ends_with_the_current_second_and_starts_exactly_that_long_before() -> None:
    costs = _costs(
        (timedelta(0), "m"),
        (-timedelta(milliseconds=999), "m"),  # within the current second: counted
        (timedelta(hours=24), "m"),  # exactly at the window's start: counted
        (timedelta(hours=24, microseconds=1), "m"),  # just before it: not
        (-timedelta(seconds=1), "m"),  # the next second: not
    )
    report = costs.recent(86_400, now=T0, by="agent")
    assert (report.since, report.until) == (T0 - timedelta(days=1), T0 + timedelta(seconds=1))
    assert (report.runs, report.total_usd) == (3, Decimal(3))


def test_totals_by_model_are_the_whole_history_priced_per_model() -> None:
    costs = _costs(*((timedelta(days=d), "m") for d in range(30)), (timedelta(days=400), None))
    lines = costs.totals_by_model()
    assert [(line.key, line.runs, line.usd) for line in lines] == [("m", 30, Decimal(30)), (UNRECORDED, 1, 0)]
    everything = costs.report(since=T0 - timedelta(days=500), until=T0 + timedelta(seconds=1), by="model")
    assert lines == everything.lines
