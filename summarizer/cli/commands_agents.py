"""`summarizer agents`: every agent with where it came from, what it holds and how it is doing, a page at a
time (one database statement per page, however many agents there are)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, cast

import click

from summarizer import composition
from summarizer.cli.params import AGENT_ID
from summarizer.cli.runtime import current_settings
from summarizer.composition.fleet import build_fleet_view
from summarizer.humanize import age, tokens_short
from summarizer.storage.agent_listing import AGENT_ORDERS, AgentListing, AgentOrder

MAX_PAGE = 1000
DEFAULT_PAGE = 50


def source_text(row: AgentListing) -> str:
    """`watch claude-code /path/to/log.jsonl`, `hook codex ...`, `api`; "unrecorded" for an agent created
    before sources were recorded."""
    if row.source is None:
        return "unrecorded"
    return " ".join(part for part in (row.source, row.source_format, row.source_path) if part)


def state_text(row: AgentListing) -> str:
    state = "parked" if row.parked else (row.queue_state or "-")
    return f"{state}, {row.open_alerts} alert(s)" if row.open_alerts else state


def table(rows: list[AgentListing], now: datetime) -> list[str]:
    head = ("AGENT", "MSGS", "EXCH", "SUMMARY", "LAST ACTIVITY", "STATE", "SOURCE")
    body = [
        (
            row.agent_id,
            f"{row.messages:,}",
            f"{row.exchanges:,}",
            "-"
            if row.summary_version is None
            else f"v{row.summary_version} {tokens_short(row.summary_tokens or 0)} tok",
            age(row.last_activity_at, now),
            state_text(row),
            source_text(row),
        )
        for row in rows
    ]
    widths = [max(len(line[n]) for line in [head, *body]) for n in range(len(head) - 1)]
    right = {1, 2}
    return [
        "  ".join(
            [
                *(
                    cell.rjust(widths[n]) if n in right else cell.ljust(widths[n])
                    for n, cell in enumerate(line[:-1])
                ),
                line[-1],
            ]
        )
        for line in [head, *body]
    ]


def _next_command(after: str, order: str, limit: int) -> str:
    sort = "" if order == "activity" else f" --sort {order}"
    size = "" if limit == DEFAULT_PAGE else f" --limit {limit}"
    return f"summarizer agents --after {after}{sort}{size}"


@click.command()
@click.option(
    "--sort",
    "order",
    type=click.Choice(AGENT_ORDERS),
    default="activity",
    show_default=True,
    help="activity: the most recently active first; id: by agent id.",
)
@click.option(
    "--limit",
    type=click.IntRange(1, MAX_PAGE),
    default=DEFAULT_PAGE,
    show_default=True,
    help=f"Agents per page (at most {MAX_PAGE:,}).",
)
@click.option("--after", "after", type=AGENT_ID, help="Continue after this agent (the last one of a page).")
@click.option("--all", "every", is_flag=True, help="Every page, one after the other.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def agents(order: str, limit: int, after: str | None, every: bool, as_json: bool) -> None:
    """Every agent: its source (the file and format `watch` or `ingest` read, a hook, the CLI or the API),
    message and exchange counts, summary size, last activity, and whether it is parked or has open alerts.

    A page at a time; the last line names the command for the next page (`--after`). Ids starting with
    `-` (Claude Code's projects) are typed as shown."""
    settings = current_settings()
    db = composition.open_database(settings)
    fleet = build_fleet_view(db)
    sort = cast(AgentOrder, order)
    rows: list[AgentListing] = []
    cursor = after
    while True:
        page = fleet.agent_page(order=sort, after=cursor, limit=limit + 1)
        more = len(page) > limit
        rows.extend(page[:limit])
        if page[:limit]:
            cursor = page[:limit][-1].agent_id
        if not (every and more):
            break
    if not rows and after is not None and not composition.build_sql_store(db).agent_exists(after):
        raise click.BadParameter(f"no agent {after!r} to continue after", param_hint="--after")
    next_after = cursor if more and rows else None
    if as_json:
        doc: dict[str, Any] = {"agents": [r.to_json() for r in rows], "next_after": next_after}
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
        return
    if not rows:
        click.echo("no agents" if after is None else f"no agents after {after}")
        return
    for line in table(rows, datetime.now(UTC)):
        click.echo(line)
    if next_after is not None:
        click.echo(f"more: {_next_command(next_after, order, limit)}")
    dashed = next((r.agent_id for r in rows if r.agent_id.startswith("-")), None)
    if dashed is not None:
        click.echo(f"ids starting with '-' are typed as shown: summarizer context {dashed}")
