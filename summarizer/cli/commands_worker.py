"""`summarizer worker | beat | drain | queue | requeue`: running and operating the summary workers.

`worker` and `beat` hand over to `celery -A workers.app ...` in place of this process (exec), so signals
reach Celery directly and the `summarizer` package never imports `workers`. A worker that runs the beat
runs it as a supervised child (`--supervised-beat`, see workers/beat_supervisor.py) rather than Celery's
`-B`: the child dies with the worker and is restarted if it exits.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys

import click

from summarizer import composition
from summarizer.broker.celery_config import CELERY_APP
from summarizer.cli.breaker_text import breaker_lines
from summarizer.cli.dash_ids import AgentIdCommand
from summarizer.cli.params import AGENT_ID, COUNT
from summarizer.cli.runtime import current_settings
from summarizer.domain.clock import utcnow
from summarizer.domain.queue_states import STATES as QUEUE_STATES

# Takes the single-beat guard before the schedule file is opened (see workers/beat.py).
BEAT_SCHEDULER = "workers.beat:GuardedScheduler"
POOLS = ("threads", "prefork", "solo", "gevent")


def _require_pool(pool: str) -> None:
    if pool == "gevent" and importlib.util.find_spec("gevent") is None:
        raise click.UsageError(
            "the gevent pool needs the gevent package: install tiered-summarizer with its `gevent` extra"
            " (pip install 'tiered-summarizer[gevent]'), or choose SUMMARIZER_WORKER_POOL=threads"
        )


def _exec_celery(args: list[str]) -> None:
    argv = [sys.executable, "-m", "celery", "-A", CELERY_APP, *args]
    os.execv(sys.executable, argv)


@click.command()
@click.option(
    "--concurrency",
    "-c",
    type=click.IntRange(1, 1024),
    help="Concurrent updates (default SUMMARIZER_WORKER_CONCURRENCY).",
)
@click.option(
    "--pool",
    "-P",
    type=click.Choice(POOLS),
    help="Celery pool (default SUMMARIZER_WORKER_POOL); gevent needs the `gevent` extra.",
)
@click.option(
    "--beat/--no-beat",
    "with_beat",
    default=None,
    help="Run the beat as a child of this worker, restarted if it exits (default: embedded mode only).",
)
@click.option("--hostname", "-n", help="Worker node name (default: celery@HOST).")
@click.option("--loglevel", "-l", default="INFO", show_default=True)
def worker(
    concurrency: int | None, pool: str | None, with_beat: bool | None, hostname: str | None, loglevel: str
) -> None:
    """Run a summary worker (the same as `celery -A workers.app worker`)."""
    settings = current_settings()
    composition.wait_for_database(settings).dispose()  # starts before its database: waits, never exits
    args = ["worker", "-l", loglevel, "-Q", "summarizer"]
    if concurrency:
        args += ["-c", str(concurrency)]
    # Always on the command line: Celery patches the standard library for gevent as it starts, and only
    # when the pool is given there; set in the app's configuration it would come too late.
    pool = pool or settings.worker_pool
    _require_pool(pool)
    args += ["-P", pool]
    if hostname:
        args += ["-n", hostname]
    if with_beat if with_beat is not None else not settings.broker_url:
        args.append("--supervised-beat")
    _exec_celery(args)


@click.command()
@click.option("--loglevel", "-l", default="INFO", show_default=True)
def beat(loglevel: str) -> None:
    """Run the scheduler (dispatcher, aging, lease rescue). Exactly one may run: a second one exits."""
    _exec_celery(["beat", "-l", loglevel, "-S", BEAT_SCHEDULER])


@click.command()
@click.option("--agent", "agent_id", type=AGENT_ID, help="Only this agent's row.")
@click.option("--max-runs", type=COUNT, help="Stop after this many updates.")
def drain(agent_id: str | None, max_runs: int | None) -> None:
    """Process every due queue row in this process, then exit (scripts, tests, backfills)."""
    settings = current_settings()
    report = composition.build_update_service(settings, composition.open_database(settings)).drain(
        agent_id, max_runs
    )
    detail = ", ".join(f"{k}: {v}" for k, v in sorted(report.by_outcome.items())) or "nothing was due"
    click.echo(f"drained {report.runs} update(s) ({detail})")


@click.command("queue")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option(
    "--state",
    "states",
    multiple=True,
    type=click.Choice(QUEUE_STATES),
    help="Only rows in this state (repeatable).",
)
def queue_command(as_json: bool, states: tuple[str, ...]) -> None:
    """The summary update queue: one row per agent."""
    ops = composition.build_operations(current_settings())
    rows = ops.queue(states or None)
    if as_json:
        click.echo(json.dumps([r.to_json() for r in rows], indent=2))
        return
    now = utcnow()
    for line in breaker_lines(ops.breakers(), now, closed_too=False):
        click.echo(line)
    if not rows:
        click.echo("queue is empty")
        return
    for r in rows:
        wait = (r.available_at - now).total_seconds()
        due = "due" if wait <= 0 else f"in {wait:.0f}s"
        error = f"  last error: {r.last_error}" if r.last_error and r.state != "idle" else ""
        click.echo(
            f"{r.agent_id:<30} {r.state:<8} {due:<10} attempts={r.attempts} "
            f"failures={r.consecutive_failures} priority={r.priority}{error}"
        )


@click.command(cls=AgentIdCommand)
@click.argument("agent_id", type=AGENT_ID, required=False)
@click.option("--all-parked", is_flag=True, help="Re-arm every parked agent instead of one.")
def requeue(agent_id: str | None, all_parked: bool) -> None:
    """Re-arm AGENT's summary updates (after it was parked as failed), or every parked agent's."""
    if all_parked == (agent_id is not None):
        raise click.UsageError("give either AGENT or --all-parked")
    ops = composition.build_operations(current_settings())
    if agent_id is None:
        done_all = ops.requeue_all_parked()
        failed_wake = next((r.wake_error for r in done_all if r.wake_error), None)
        if failed_wake is not None:
            click.echo(f"no wake-up sent ({failed_wake}); the dispatcher will pick them up", err=True)
        click.echo(f"{len(done_all)} parked agent(s) -> pending")
        return
    done = ops.requeue(agent_id)
    if done is None:
        raise click.ClickException(f"unknown agent {agent_id!r}")
    if done.previous == "running":
        click.echo(f"{agent_id}: an update is running; it will be re-queued if it fails")
        return
    if done.wake_error is not None:
        click.echo(
            f"{agent_id}: no wake-up sent ({done.wake_error}); the dispatcher will pick it up", err=True
        )
    click.echo(f"{agent_id}: {done.previous} -> pending")
