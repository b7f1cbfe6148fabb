"""`summarizer cost [AGENT]` and `summarizer agent budget-cost AGENT USD`: what the summaries cost, and
each agent's daily cap (docs/cost.md).

Both read through the cost facade (service/costs.py): recorded tokens times the price table, exact.
"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation

import click

from summarizer.cli.dash_ids import AgentIdCommand
from summarizer.cli.params import AGENT_ID
from summarizer.cli.runtime import current_settings
from summarizer.domain.alert_rules import format_duration, parse_duration
from summarizer.domain.clock import utcnow
from summarizer.domain.usd_text import parse_usd as usd_amount
from summarizer.service.costs import (
    GROUPINGS,
    MAX_BUDGET_USD,
    AgentBudget,
    By,
    CostReport,
    Costs,
    usd_text,
)

CLEAR_WORDS = ("none", "off", "clear")


def _open() -> Costs:
    from summarizer import composition
    from summarizer.composition.costs import build_costs

    settings = current_settings()
    return build_costs(settings, composition.open_database(settings))


def report_text(report: CostReport, window: str) -> str:
    who = f"agent {report.agent_id}" if report.agent_id else "the fleet"
    head = (
        f"cost of {who}, last {window} ({report.since:%Y-%m-%d %H:%M} to {report.until:%Y-%m-%d %H:%M} UTC),"
        f" by {report.by}"
    )
    lines = [head]
    if not report.lines:
        lines.append("no model usage in this window")
    else:
        width = max(len(report.by), *(len(line.key) for line in report.lines))
        lines.append(
            f"{report.by.upper():<{width}}  {'RUNS':>6}  {'INPUT':>12}  {'OUTPUT':>10}  "
            f"{'CACHE READ':>12}  {'CACHE WRITE':>12}  USD"
        )
        for line in report.lines:
            u = line.usage
            lines.append(
                f"{line.key:<{width}}  {line.runs:>6}  {u.input_tokens:>12,}  {u.output_tokens:>10,}  "
                f"{u.cache_read_tokens:>12,}  {u.cache_write_tokens:>12,}  {usd_text(line.usd)}"
            )
    lines.append(f"total: ${usd_text(report.total_usd)} over {report.runs:,} runs")
    if report.unpriced:
        lines.append("unpriced (counted as $0; add them to SUMMARIZER_PRICES): " + ", ".join(report.unpriced))
    return "\n".join(lines)


@click.command("cost", cls=AgentIdCommand)
@click.argument("agent_id", required=False, type=AGENT_ID)
@click.option("--since", "since", default="7d", show_default=True, help="Window: 90m, 24h, 7d, 2w...")
@click.option("--by", "by", type=click.Choice(GROUPINGS), default="day", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (amounts as exact decimal strings).")
def cost(agent_id: str | None, since: str, by: By, as_json: bool) -> None:
    """What the model calls of AGENT_ID (default: the whole fleet) cost: recorded tokens x list prices."""
    try:
        seconds = parse_duration(since)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--since") from None
    report = _open().recent(seconds, now=utcnow(), agent_id=agent_id, by=by)
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2))
        return
    click.echo(report_text(report, format_duration(seconds)))


def _a_number(text: str) -> bool:
    if "_" in text:
        return False
    try:
        Decimal(text)
    except InvalidOperation:
        return False
    return True


def parse_usd(text: str) -> Decimal | None:
    """A budget in USD (`5`, `0.25`, `$12.50`), or None for none/off/clear."""
    if text.strip().lower() in CLEAR_WORDS:
        return None
    try:
        amount = usd_amount(text)
    except ValueError as exc:
        if _a_number(text.strip().removeprefix("$")):  # -1, NaN, 1e12: numbers, none of them a budget
            raise click.BadParameter(
                f"a daily budget is between 0 and {MAX_BUDGET_USD:,} USD, written with digits and at most "
                f"one decimal point; got {text!r}"
            ) from None
        raise click.BadParameter(f"expected an amount in USD such as 5 or 0.25, or none; {exc}") from None
    if not amount.is_finite() or amount < 0 or amount > MAX_BUDGET_USD:
        raise click.BadParameter(f"a daily budget is between 0 and {MAX_BUDGET_USD:,} USD, got {text!r}")
    return amount


def budget_text(budget: AgentBudget) -> str:
    effective = budget.effective_usd
    if effective is None:
        cap = "no daily cost budget"
    elif budget.own_usd is None:
        cap = f"the default daily cost budget ${usd_text(effective)}"
    else:
        cap = f"a daily cost budget of ${usd_text(effective)}"
    return f"agent {budget.agent_id} has {cap}; spent today: ${usd_text(budget.spent_today_usd)}"


@click.command("budget-cost", cls=AgentIdCommand)
@click.argument("agent_id", type=AGENT_ID)
@click.argument("usd")
@click.option("--json", "as_json", is_flag=True, help="Print the agent's budget as JSON.")
def agent_budget_cost(agent_id: str, usd: str, as_json: bool) -> None:
    """Cap AGENT_ID's model spend per UTC day at USD (`none` clears it: the default applies). Once spent,
    its updates go to the offline summarizer until midnight UTC; nothing is dropped."""
    amount = parse_usd(usd)
    budget = _open().set_budget(agent_id, amount, utcnow())
    click.echo(json.dumps(budget.to_json(), indent=2) if as_json else budget_text(budget))
