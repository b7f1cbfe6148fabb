"""`summarizer summary`: the tiered summary an agent's host sends along with its window."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import click

from summarizer.cli.dash_ids import AgentIdCommand
from summarizer.cli.params import AGENT_ID, VERSION
from summarizer.cli.runtime import open_runtime
from summarizer.engine.tiers import KEEP_FOR_DAYS
from summarizer.views import summary_json


def parse_now(value: str | None) -> datetime:
    """`--now` as an aware datetime (a value without a zone is taken as UTC)."""
    if value is None:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise click.BadParameter(
            f"expected an ISO-8601 timestamp, got {value!r}", param_hint="--now"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@click.command(cls=AgentIdCommand)
@click.argument("agent_id", type=AGENT_ID)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--now", "now_text", metavar="TS", help="Render relative times as of this ISO-8601 moment.")
@click.option("--version", "version", type=VERSION, help="A kept older version instead.")
def summary(agent_id: str, as_json: bool, now_text: str | None, version: int | None) -> None:
    """Print AGENT_ID's latest committed summary (Markdown, or JSON with --json)."""
    from summarizer.engine.render import render_summary

    now = parse_now(now_text)
    rt = open_runtime()
    current = rt.summarizer.summary(agent_id)
    markdown, _ = rt.summarizer.summary_text(agent_id, now)
    if version is not None:
        current = rt.provenance().version(agent_id, version).summary
        markdown = render_summary(current, now)
    if as_json:
        payload = summary_json(current, agent_id, markdown, rt.summarizer.summary_max_tokens)
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        click.echo(markdown)


@click.command()
@click.option("--now", "now_text", metavar="TS", help="Age as of this ISO-8601 moment (default: now).")
@click.option("--agent", "agent_id", type=AGENT_ID, help="Only this agent's summary.")
def age(now_text: str | None, agent_id: str | None) -> None:
    """Age summaries: session -> yesterday after 24 h, -> week after 7 days, dropped after 14 days.

    Idempotent per agent and day; beat runs it on a schedule, this runs it now.
    """
    now = parse_now(now_text)
    rt = open_runtime()
    if agent_id is not None:
        rt.summarizer.summary(agent_id)  # raises UnknownAgent
    report = rt.update_service().age(now, agent_id)
    click.echo(
        f"aged {report.agents} summary(ies) as of {now.isoformat()}: "
        f"{report.moved} item(s) moved to an older tier, {report.dropped} dropped (older than {KEEP_FOR_DAYS} days)"
    )
