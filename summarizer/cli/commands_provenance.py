"""`summarizer provenance|diff|rollback|versions`: where each exchange went, and the kept summary versions."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import click

from summarizer.cli.dash_ids import AgentIdCommand, AgentIdGroup
from summarizer.cli.params import AGENT_ID, COUNT, VERSION
from summarizer.cli.runtime import open_runtime
from summarizer.engine.model import SummaryItem
from summarizer.service.ledger import LedgerEntry
from summarizer.service.provenance import Provenance, VersionDiff
from summarizer.views import ledger_entry_json, pin_json


def _facade() -> Provenance:
    return open_runtime().provenance()


def ledger_lines(entries: list[LedgerEntry]) -> list[str]:
    """One line per evicted exchange: where it went."""
    lines = []
    for e in entries:
        if e.state == "summarized":
            lines.append(f"  #{e.id}: summarized in item {e.item_id} (version {e.version})")
        elif e.state == "dropped":
            lines.append(f"  #{e.id}: dropped in version {e.version} ({e.reason}: {e.detail})")
        elif e.state != "in_window":
            lines.append(f"  #{e.id}: {e.state}")
    return lines


@click.command(cls=AgentIdCommand)
@click.argument("agent_id", type=AGENT_ID)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def provenance(agent_id: str, as_json: bool) -> None:
    """Where each of AGENT_ID's exchanges is: waiting, summarized (by which item), dropped (why), in the window."""
    entries = _facade().ledger(agent_id)
    if as_json:
        payload = {"agent_id": agent_id, "exchanges": [ledger_entry_json(e) for e in entries]}
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    counts: dict[str, int] = {}
    for e in entries:
        counts[e.state] = counts.get(e.state, 0) + 1
    click.echo(", ".join(f"{n} {state}" for state, n in sorted(counts.items())) or "no exchanges")
    for line in ledger_lines(entries):
        click.echo(line)


def _item_json(item: SummaryItem) -> dict[str, Any]:
    return {"id": item.id, "tier": item.tier, "text": item.text, "exchange_ids": list(item.exchange_ids)}


def diff_json(d: VersionDiff) -> dict[str, Any]:
    return {
        "added": [_item_json(i) for i in d.added],
        "removed": [_item_json(i) for i in d.removed],
        "merged": [{"from": list(ids), "into": _item_json(i)} for ids, i in d.merged],
        "pinned": [pin_json(p) for p in d.pinned],
        "unpinned": [pin_json(p) for p in d.unpinned],
    }


@click.command(cls=AgentIdCommand)
@click.argument("agent_id", type=AGENT_ID)
@click.argument("older", type=VERSION)
@click.argument("newer", type=VERSION)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def diff(agent_id: str, older: int, newer: int, as_json: bool) -> None:
    """The items added, removed and merged between two kept versions of AGENT_ID's summary."""
    d = _facade().diff(agent_id, older, newer)
    if as_json:
        click.echo(json.dumps(diff_json(d), indent=2, ensure_ascii=False))
        return
    for item in d.added:
        click.echo(f"+ {item.id} [{item.tier}] {item.text}")
    for item in d.removed:
        click.echo(f"- {item.id} [{item.tier}] {item.text}")
    for ids, item in d.merged:
        click.echo(f"= {', '.join(ids)} -> {item.id} [{item.tier}] {item.text}")
    for pin in d.pinned:
        click.echo(f"+ pin {pin.name!r} (by {pin.pinned_by}): {pin.text}")
    for pin in d.unpinned:
        click.echo(f"- pin {pin.name!r}: {pin.text}")
    if not (d.added or d.removed or d.merged or d.pinned or d.unpinned):
        click.echo("no items added, removed or merged, no pins changed")


@click.command(cls=AgentIdCommand)
@click.argument("agent_id", type=AGENT_ID)
@click.argument("version", type=VERSION)
def rollback(agent_id: str, version: int) -> None:
    """Make VERSION's items and pins AGENT_ID's current summary again, as a new version."""
    new = _facade().rollback(agent_id, version)
    click.echo(f"{agent_id}: version {new.version} holds the {len(new.items)} item(s) of version {version}")


@click.command(cls=AgentIdCommand)
@click.argument("agent_id", type=AGENT_ID)
def resummarize(agent_id: str) -> None:
    """Rebuild AGENT_ID's summary from its stored history with the current model, in the background; the
    result replaces the summary as a new version. The daily cost budgets apply as to updates: with one
    spent, the offline summarizer rebuilds it (this command says so)."""

    rt = open_runtime()
    facade = rt.provenance(wake=True)
    previous = facade.resummarize(agent_id)
    click.echo(f"{agent_id}: rebuild requested (queue row was {previous}); a worker swaps it in when done")
    offline = facade.rebuild_offline(agent_id)
    if offline is not None:
        click.echo(
            f"note: {offline}: the offline summarizer will rebuild it, unless the budget is raised "
            "(agent budget-cost) before a worker starts, or the UTC day turns"
        )


@click.group(cls=AgentIdGroup)
def versions() -> None:
    """The kept versions of summaries."""


@versions.command("list")
@click.argument("agent_id", type=AGENT_ID)
def list_versions(agent_id: str) -> None:
    """Every kept version of AGENT_ID's summary."""
    for kept in _facade().versions(agent_id):
        made = kept.made_by + (f" ({kept.run_path})" if kept.run_path else "")
        click.echo(
            f"v{kept.summary.version}  {kept.created_at.astimezone(UTC).isoformat(timespec='seconds')}"
            f"  {len(kept.summary.items)} item(s), {kept.summary.token_count} tokens  {made}"
        )


@versions.command("prune")
@click.option("--keep", type=COUNT, help="Versions to keep per agent (default: the setting).")
@click.option("--agent", "agent_id", type=AGENT_ID, help="Only this agent's versions.")
def prune(keep: int | None, agent_id: str | None) -> None:
    """Delete all but the newest kept versions (SUMMARIZER_KEEP_VERSIONS; 0 there means keep all)."""
    rt = open_runtime()

    count = keep if keep is not None else rt.settings.keep_versions
    if count < 1:
        click.echo("keeping every version (SUMMARIZER_KEEP_VERSIONS is 0); nothing pruned")
        return
    gone = rt.provenance().prune(count, agent_id)
    click.echo(f"pruned {gone} version(s); at most {count} kept per agent")


def now_utc() -> datetime:
    return datetime.now(UTC)
