"""The composition root's cost side: the price table and the daily budgets, built from Settings."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from urllib.parse import urlsplit

from summarizer.composition.llm import chosen_llm
from summarizer.domain.prices import FREE, PriceTable, default_table, read_prices
from summarizer.service.cost_budgets import BudgetPolicy, CostBudgets
from summarizer.service.costs import Costs, to_micros
from summarizer.settings import LLMChoice, Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.stores.cost_store import SqlCostStore

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal"})


def local_server(base_url: str) -> bool:
    """An OpenAI-compatible server on this machine (Ollama, llama.cpp, vLLM on localhost): it bills nothing."""
    host = (urlsplit(base_url.strip()).hostname or "") if base_url.strip() else ""
    return host in LOCAL_HOSTS or host.startswith("127.")


def build_price_table(settings: Settings) -> PriceTable:
    """The shipped list prices, SUMMARIZER_PRICES over them, and a local server's models free: those the
    table does not list (a listed name on localhost is a proxy to the paid API, and keeps its price)."""
    table = default_table().with_prices(read_prices(settings.prices))
    uses_openai = LLMChoice.OPENAI in (settings.llm, settings.llm_fallback)
    if uses_openai and local_server(settings.openai_base_url):
        names = [settings.openai_model] + ([settings.merge_model] if settings.merge_model else [])
        table = table.with_prices({name: FREE for name in names if table.price(name) is None})
    return table


def budget_policy(settings: Settings) -> BudgetPolicy:
    agent, fleet = settings.cost_budget_agent_usd, settings.cost_budget_fleet_usd
    return BudgetPolicy(
        agent_micros=None if agent is None else to_micros(agent),
        fleet_micros=None if fleet is None else to_micros(fleet),
    )


def build_cost_budgets(settings: Settings, db: Database) -> CostBudgets:
    return CostBudgets(SqlCostStore(db), build_price_table(settings), budget_policy(settings))


def build_costs(settings: Settings, db: Database) -> Costs:
    """The facade `cost`, `agent budget-cost`, the HTTP routes and the page read."""
    return Costs(SqlCostStore(db), build_price_table(settings), budget_policy(settings))


def spent_budget(settings: Settings, db: Database) -> Callable[[str, datetime], str | None] | None:
    """Why an agent's work would now go to the offline summarizer under the daily cost budgets (the
    worker's own check), or None when no budget is spent; None with the offline summarizer (free)."""
    if chosen_llm(settings) is LLMChoice.OFFLINE:
        return None
    budgets = build_cost_budgets(settings, db)

    def reason(agent_id: str, now: datetime) -> str | None:
        verdict = budgets.check(agent_id, now)
        return None if verdict is None else verdict.reason

    return reason
