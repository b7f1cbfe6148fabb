"""What the cost figures read, on both databases: a Prometheus scrape prices one row a model however long
the history (and still exactly the recorded tokens times the prices), and an update's budget check sends
one statement when no budget applies to its agent, the three it needs when one does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from prometheus_client.parser import text_string_to_metric_families

from summarizer.domain.prices import ModelPrice, default_table
from summarizer.metrics import build_registry, render
from summarizer.service.cost_budgets import BudgetPolicy, CostBudgets
from summarizer.service.costs import Costs
from summarizer.storage.cost_port import UsageRow
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.metric_figures import SqlMetricsReader
from summarizer.storage.sql.stores.conversations import ConversationStore
from summarizer.storage.sql.stores.cost_store import SqlCostStore
from summarizer.storage.sql.writers.summaries import record_run
from summarizer.storage.values import RunRecord
from tests.support.statements import counting_statements

NOW = datetime(2026, 3, 20, 12, tzinfo=UTC)
PRICES = {
    "model-a": ModelPrice(Decimal("3"), Decimal("15"), Decimal("0.30"), Decimal("3.75")),
    "model-b": ModelPrice(Decimal("0.15"), Decimal("0.60"), Decimal("0.075"), Decimal("0.15")),
}
TABLE = default_table().with_prices(PRICES)
DAYS, AGENTS = 20, 6


class CountingCostStore(SqlCostStore):
    """The SQL cost store, counting the usage rows each read hands back."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.rows_read = 0

    def usage(self, *, since: datetime, until: datetime, agent_id: str | None) -> list[UsageRow]:
        rows = super().usage(since=since, until=until, agent_id=agent_id)
        self.rows_read += len(rows)
        return rows

    def usage_totals(self) -> list[UsageRow]:
        rows = super().usage_totals()
        self.rows_read += len(rows)
        return rows


def _seed_history(db: Database) -> Decimal:
    """Runs of every agent on every day with both models; what they cost, priced here on their own."""
    expected = Decimal(0)
    with db.write() as conn:
        for day in range(DAYS):
            for agent in range(AGENTS):
                for n, model in enumerate(PRICES):
                    used = (1_000 + 7 * day + agent, 100 + n, 200 + agent, 10 * n)  # in, out, read, write
                    finished = NOW - timedelta(days=day, minutes=agent + 1)
                    record_run(
                        conn,
                        RunRecord(
                            f"agent-{agent}",
                            finished - timedelta(seconds=5),
                            finished,
                            "ok",
                            path="append",
                            llm_input_tokens=used[0],
                            llm_output_tokens=used[1],
                            llm_cache_read_tokens=used[2],
                            llm_cache_write_tokens=used[3],
                            model=model,
                        ),
                    )
                    p = PRICES[model]
                    uncached = used[0] - used[2] - used[3]
                    expected += (
                        uncached * p.input
                        + used[1] * p.output
                        + used[2] * p.cache_read
                        + used[3] * p.cache_write
                    ) / 1_000_000
    return expected


def test_a_scrape_prices_one_row_a_model_and_stays_exact(db: Database) -> None:
    expected = _seed_history(db)
    store = CountingCostStore(db)
    costs = Costs(store, TABLE, BudgetPolicy())
    registry = build_registry(SqlMetricsReader(db), costs)
    text = render(registry).decode()
    assert store.rows_read == len(PRICES)  # not DAYS x AGENTS x models
    usd = {
        sample.labels["model"]: Decimal(repr(sample.value))
        for family in text_string_to_metric_families(text)
        if family.name == "summarizer_llm_cost_usd"
        for sample in family.samples
    }
    lines = costs.totals_by_model()
    assert sum((line.usd for line in lines), Decimal(0)) == expected  # exact before Prometheus' floats
    report = costs.report(since=NOW - timedelta(days=DAYS + 1), until=NOW + timedelta(seconds=1), by="model")
    assert [(line.key, line.runs, line.usage, line.usd) for line in report.lines] == [
        (line.key, line.runs, line.usage, line.usd) for line in lines
    ]
    assert usd.keys() == set(PRICES)
    for line in lines:
        assert float(usd[line.key]) == float(line.usd)


def _check_statements(db: Database, policy: BudgetPolicy, agent_id: str) -> int:
    budgets = CostBudgets(SqlCostStore(db), TABLE, policy)
    with counting_statements(db) as seen:
        budgets.check(agent_id, NOW)
    return sum(not s.lstrip().upper().startswith(("BEGIN", "COMMIT", "ROLLBACK")) for s in seen)


def test_the_budget_check_reads_nothing_more_when_no_budget_applies(db: Database) -> None:
    _seed_history(db)
    ConversationStore(db).create_agent("own")
    assert SqlCostStore(db).set_cost_budget("own", 1)
    assert _check_statements(db, BudgetPolicy(), "agent-0") == 1  # its own budget: there is none
    assert _check_statements(db, BudgetPolicy(agent_micros=10**12), "agent-0") == 3
    assert _check_statements(db, BudgetPolicy(), "own") == 3


def test_verdicts_are_those_of_the_budgets_that_apply(db: Database) -> None:
    _seed_history(db)
    ConversationStore(db).create_agent("agent-0")
    costs = SqlCostStore(db)
    assert CostBudgets(costs, TABLE, BudgetPolicy()).check("agent-0", NOW) is None
    spent_default = CostBudgets(costs, TABLE, BudgetPolicy(agent_micros=1)).check("agent-0", NOW)
    assert spent_default is not None
    assert spent_default.scope == "agent"
    assert spent_default.alert is not None
    assert costs.set_cost_budget("agent-0", 1)
    own = CostBudgets(costs, TABLE, BudgetPolicy()).check("agent-0", NOW)
    assert own is not None
    assert own.spent == spent_default.spent > 0
    fleet = CostBudgets(costs, TABLE, BudgetPolicy(fleet_micros=1)).check("agent-1", NOW)
    assert fleet is not None
    assert fleet.scope == "fleet"
