"""`summarizer stats` and `summarizer alerts [ack|check]`: the seed's dashboard and its alerts.

Both read the same figures the alert beat judges (through the operators' facade, `Operations`), so what
an operator sees is what the rules saw.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import click

from summarizer import composition
from summarizer.alerting.service import EvaluationReport
from summarizer.cli.breaker_text import breaker_lines
from summarizer.cli.params import COUNT, ROW_ID
from summarizer.cli.runtime import current_settings
from summarizer.domain.alert_records import AlertRecord
from summarizer.domain.alert_rules import format_duration, parse_duration
from summarizer.domain.update_stats import UpdateStats
from summarizer.humanize import age, tokens_short
from summarizer.service.operations import Operations


def _open() -> Operations:
    """The operators' facade; not `open_runtime()`, whose conversation facade would load the LLM SDK
    (seconds of imports) for commands that only read a few tables."""
    return composition.build_operations(current_settings())


def _window(text: str) -> float:
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--since") from None


def duration_text(ms: float | None) -> str:
    """Milliseconds below a second (a fast update is not "0.0s"), seconds above."""
    if ms is None:
        return "n/a"
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f}s"


def stats_text(s: UpdateStats, label: str, *, counts_tokens: bool = True) -> str:
    """The seed's dashboard block, plus the queue, LLM cost, paths and truncations.

    `counts_tokens=False` (the offline summarizer calls no model) says so instead of "0 in / 0 out".
    """
    duration = duration_text(s.avg_duration_ms)
    tokens = (
        f"{s.llm_input_tokens:,} in / {s.llm_output_tokens:,} out"
        + (
            f" (cache: {s.llm_cache_read_tokens:,} read, {s.llm_cache_write_tokens:,} written)"
            if s.llm_cache_read_tokens or s.llm_cache_write_tokens
            else ""
        )
        if counts_tokens
        else "none counted (the offline summarizer calls no model)"
    )
    cap_text = tokens_short(s.summary_max_tokens) if s.summary_max_tokens is not None else "?"
    size = (
        f"n/a (cap {cap_text} tokens)"
        if s.avg_summary_tokens is None
        else f"{tokens_short(round(s.avg_summary_tokens))}/{cap_text} tokens"
    )
    paths = ", ".join(f"{path} {n:,}" for path, n in sorted(s.paths.items(), key=lambda p: -p[1])) or "none"
    q = s.queue
    return "\n".join(
        [
            f"Summary Updates (last {label}):",
            f"  Completed: {s.updates_completed:,}",
            f"  Failed: {s.updates_failed:,} ({s.failure_rate:.1%})",
            f"  Avg duration: {duration}",
            f"  Avg size: {size}",
            f"  Queue depth: {s.queue_depth:,} ({q.get('pending', 0):,} pending, "
            f"{q.get('running', 0):,} running, {q.get('failed', 0):,} parked)",
            f"  LLM tokens: {tokens}",
            f"  Paths taken: {paths}",
            f"  Truncations: {s.truncations:,}",
        ]
    )


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--since", default="24h", show_default=True, help="Window of runs: e.g. 90m, 24h, 7d.")
def stats(as_json: bool, since: str) -> None:
    """Summary update figures over a recent window, and the queue as it is now."""
    seconds = _window(since)
    ops = _open()
    figures = ops.stats(seconds)
    label = format_duration(seconds)
    now = datetime.now(UTC)
    breakers = ops.breakers()
    if as_json:
        doc = figures.to_json()
        doc["window"]["label"] = label
        doc["breakers"] = [b.to_json(now) for b in breakers]
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo(stats_text(figures, label))
        for line in breaker_lines(breakers, now, closed_too=True):
            click.echo(f"  {line}")


def _delivery_text(delivery: dict[str, Any]) -> str:
    parts = []
    for sink, entry in sorted(delivery.items()):
        if not isinstance(entry, dict):
            parts.append(f"{sink} {entry}")
            continue
        text = f"{sink} {entry.get('status', '?')}"
        if entry.get("status") != "sent" and entry.get("attempts"):
            text += f" ({entry['attempts']} attempts: {entry.get('error', '')})"
        resolution = entry.get("resolution")
        if isinstance(resolution, dict):
            text += f", resolution {resolution.get('status', '?')}"
        parts.append(text)
    return ", ".join(parts) or "none"


def alert_text(record: AlertRecord, now: datetime) -> str:
    state = (
        "open" if record.is_open else f"resolved {age(record.resolved_at, now)}" if record.resolved_at else ""
    )
    acked = "  [acknowledged]" if record.acknowledged_at else ""
    agent = f"  agent={record.agent_id}" if record.agent_id else ""
    return "\n".join(
        [
            f"#{record.id:<5} {record.severity:<8} {record.kind:<26} raised {age(record.created_at, now)}, "
            f"{state}{agent}{acked}",
            f"       {record.message}",
            f"       delivery: {_delivery_text(record.delivery)}",
        ]
    )


@click.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--all", "show_all", is_flag=True, help="Resolved alerts too, not only open ones.")
@click.option("--limit", type=COUNT, default=100, show_default=True, help="Newest first.")
@click.pass_context
def alerts(ctx: click.Context, as_json: bool, show_all: bool, limit: int) -> None:
    """Open alerts (all with --all); `alerts ack ID` acknowledges one, `alerts check` evaluates now."""
    if ctx.invoked_subcommand is not None:
        return
    records = _open().alerts(include_resolved=show_all, limit=limit)
    if as_json:
        click.echo(json.dumps([r.to_json() for r in records], indent=2))
        return
    if not records:
        click.echo("no alerts" if show_all else "no open alerts")
        return
    now = datetime.now(UTC)
    click.echo("\n".join(alert_text(r, now) for r in records))


@alerts.command("ack")
@click.argument("alert_id", type=ROW_ID, metavar="ID")
def ack(alert_id: int) -> None:
    """Acknowledge alert ID: it stays open until its condition clears, but is not sent anywhere else."""
    record = _open().ack_alert(alert_id)
    assert record.acknowledged_at is not None
    click.echo(f"alert #{record.id} ({record.kind}) acknowledged at {record.acknowledged_at.isoformat()}")


def report_text(report: EvaluationReport) -> str:
    rules = ", ".join(f"{v.kind} {v.state.value}" for v in report.verdicts) or "not evaluated"
    lines = [f"rules: {rules}"]
    if report.raised:
        lines.append(f"raised: {', '.join(report.raised)}")
    if report.resolved:
        lines.append(f"resolved: {', '.join(report.resolved)}")
    for a in report.attempts:
        error = f" ({a.error})" if a.error else ""
        lines.append(f"alert #{a.alert_id} {a.event} -> {a.sink}: {a.status}, attempt {a.attempts}{error}")
    lines += [f"error: {e}" for e in report.errors]
    return "\n".join(lines)


@alerts.command("check")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def check(as_json: bool) -> None:
    """Evaluate the rules and deliver pending notices now (what beat does every ALERT_INTERVAL)."""
    report = _open().check_alerts()
    click.echo(json.dumps(report.to_json(), indent=2) if as_json else report_text(report))
    if report.errors:
        raise SystemExit(1)
