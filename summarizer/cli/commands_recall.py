"""`summarizer recall AGENT QUERY`: what the summary left out, found in the stored history."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import click

from summarizer.cli.dash_ids import AgentIdCommand
from summarizer.cli.params import AGENT_ID, FREE_TEXT
from summarizer.cli.runtime import open_runtime
from summarizer.domain.kinds import KIND_NAMES
from summarizer.domain.recall import MAX_LIMIT, InvalidQuery, parse_when
from summarizer.recall_views import recall_json, recall_text


@click.command(cls=AgentIdCommand)
@click.argument("agent_id", type=AGENT_ID)
@click.argument("query", type=FREE_TEXT)
@click.option(
    "--since", help="Only messages from this time on: ISO 8601 (2026-11-02) or a duration ago (7d)."
)
@click.option("--until", help="Only messages before this time (same spellings as --since).")
@click.option(
    "--kind", "kinds", multiple=True, type=click.Choice(KIND_NAMES), help="Only these message kinds."
)
@click.option("--limit", type=click.IntRange(1, MAX_LIMIT), default=5, show_default=True)
@click.option("--offset", type=click.IntRange(0, 10_000), default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def recall(
    agent_id: str,
    query: str,
    since: str | None,
    until: str | None,
    kinds: tuple[str, ...],
    limit: int,
    offset: int,
    as_json: bool,
) -> None:
    """Search the agent's whole stored history (evicted exchanges and the window) for QUERY, a question
    in plain words: the best matching exchanges, each with where it stands in the summary (summarized in
    which item, dropped why, waiting, in the window) and snippets of its matching messages."""
    now = datetime.now(UTC)
    try:
        start = parse_when(since, now, name="--since") if since else None
        end = parse_when(until, now, name="--until") if until else None
        rt = open_runtime()
        page = rt.summarizer.recall(
            agent_id, query, since=start, until=end, kinds=kinds, limit=limit, offset=offset
        )
    except InvalidQuery as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(json.dumps(recall_json(page), indent=2) if as_json else recall_text(page, now))
