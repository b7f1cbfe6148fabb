"""`summarizer demo`: the main job, on the embedded default or on PostgreSQL + Redis when configured.

It migrates, starts a real summary worker with its beat in a child process, replays the bundled
multi-day coding-agent conversation day by day through the sliding window (as if it had just happened:
timestamps are shifted so the last message is "now"), waits until the workers have folded every evicted
exchange into the summary, ages the summary as of today, and prints the tiered summary, the history view
and the updates dashboard. Ctrl-C stops the worker and exits; no process is left behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from itertools import groupby

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from summarizer.cli.runtime import Runtime, open_runtime
from summarizer.composition import render_summary
from summarizer.composition.llm import chosen_llm
from summarizer.domain.messages import NewMessage
from summarizer.engine.tiers import KEEP_FOR_DAYS
from summarizer.samples import SAMPLE_AGENT as DEMO_AGENT
from summarizer.samples import sample_path
from summarizer.settings import LLMChoice
from summarizer.views import history_text

# The demo's sliding window: small enough that part of the last replayed day leaves it, so all three tiers
# ("Previously in This Session", "Yesterday", "This Week") have items. SUMMARIZER_WINDOW_TOKENS overrides it.
DEMO_WINDOW_TOKENS = 8_000
DRAIN_TIMEOUT_S = 600.0
STALL_S = 120.0
"""With no exchange folded for this long the demo gives up and says what is stuck (`--stall-timeout`)."""
LOG_TAIL_LINES = 8
POLL_S = 0.25
STOP_GRACE_S = 15.0


def rebased(records: Sequence[tuple[str, NewMessage]], end: datetime) -> list[tuple[str, NewMessage]]:
    """The same conversation moved in time so that its last message happens at `end`, stamped in UTC.

    UTC is the zone the summary's weekday labels are rendered in, so the day a message is replayed on (see
    `by_day`) is the day those labels show.
    """
    last = max(m.created_at for _, m in records if m.created_at is not None)
    shift = end - last
    return [
        (a, replace(m, created_at=(m.created_at + shift).astimezone(UTC) if m.created_at else None))
        for a, m in records
    ]


def by_day(records: Sequence[tuple[str, NewMessage]]) -> list[tuple[date, list[tuple[str, NewMessage]]]]:
    def day(record: tuple[str, NewMessage]) -> date:
        created = record[1].created_at
        assert created is not None
        return created.astimezone(UTC).date()

    return [(d, list(group)) for d, group in groupby(records, key=day)]


def worker_log_path() -> str:
    return os.path.join(os.environ.get("SUMMARIZER_DATA_DIR", ".summarizer"), "demo-worker.log")


def log_tail(path: str, lines: int = LOG_TAIL_LINES) -> str:
    try:
        with open(path, "rb") as f:
            text = f.read()[-16_384:].decode("utf-8", "replace")
    except OSError:
        return "(no log yet)"
    return "\n".join("  | " + line for line in text.splitlines()[-lines:]) or "  | (empty)"


@contextmanager
def worker_process(console: Console) -> Iterator[subprocess.Popen[bytes]]:
    """A real worker with its beat, in its own process group, always stopped on the way out."""
    env = dict(os.environ)
    env.setdefault("SUMMARIZER_BATCH_MAX_WAIT", "2")  # flush the last, smaller batch without a 15-minute wait
    env.setdefault("SUMMARIZER_DISPATCH_INTERVAL", "1")
    log_path = worker_log_path()
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    with open(log_path, "ab") as log_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "summarizer", "worker", "--beat", "--loglevel", "WARNING"],
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:  # a Ctrl-C from here on still stops the worker's group on the way out
        console.print(f"started a summary worker with its beat (pid {proc.pid}, log {log_path})")
        yield proc
    finally:
        stop_process_group(proc)


def stop_process_group(proc: subprocess.Popen[bytes]) -> None:
    """TERM the worker's whole group (Celery's pool children too), then KILL whatever is left."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            pass
        except ProcessLookupError:
            return
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def waiting_exchanges(rt: Runtime) -> int:
    return rt.summarizer.unsummarized(DEMO_AGENT)


def progress_bar(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    )


def replay(
    rt: Runtime, console: Console, days: list[tuple[date, list[tuple[str, NewMessage]]]]
) -> tuple[int, int]:
    """Record the days in order; returns (messages newly stored, exchanges evicted)."""
    total = sum(len(chunk) for _, chunk in days)
    stored = evicted = 0
    with progress_bar(console) as progress:
        task = progress.add_task("replaying", total=total)
        for day, chunk in days:
            progress.update(task, description=f"replaying {day:%a %d %b}")
            report = rt.summarizer.record_many(chunk)
            stored += report.stored
            evicted += report.evicted_exchanges
            progress.advance(task, len(chunk))
    return stored, evicted


def wait_for_summaries(
    rt: Runtime, console: Console, worker: subprocess.Popen[bytes], evicted: int, stall_s: float = STALL_S
) -> None:
    """Until every evicted exchange is folded; a watchdog ends the wait when nothing moves for `stall_s`."""
    started = last_progress = time.monotonic()
    deadline = started + DRAIN_TIMEOUT_S
    fewest = evicted + 1
    log_path = worker_log_path()
    with progress_bar(console) as progress:
        task = progress.add_task("summarizing evicted exchanges", total=evicted)
        while (left := waiting_exchanges(rt)) > 0:
            progress.update(task, completed=evicted - left)
            now = time.monotonic()
            if left < fewest:
                fewest, last_progress = left, now
            if worker.poll() is not None:
                raise click.ClickException(
                    f"the worker stopped (exit {worker.returncode}) with {left} exchange(s) still waiting;"
                    f" its log is {log_path}:\n{log_tail(log_path)}"
                )
            if now - last_progress > stall_s:
                raise click.ClickException(
                    f"stuck: no exchange folded for {stall_s:.0f}s ({left} of {evicted} still waiting); the"
                    f" worker (pid {worker.pid}) is running but its updates or its beat make no progress."
                    f" Its log is {log_path}:\n{log_tail(log_path)}\n`summarizer queue` and `summarizer"
                    " doctor` show the queue and the setup"
                )
            if now > deadline:
                raise click.ClickException(
                    f"{left} exchange(s) still unsummarized after {DRAIN_TIMEOUT_S:.0f}s; log: {log_path}"
                )
            time.sleep(POLL_S)
        progress.update(task, completed=evicted)


@click.command()
@click.option(
    "--stall-timeout",
    type=click.FloatRange(min=1, max=86_400),
    default=STALL_S,
    show_default=True,
    envvar="SUMMARIZER_DEMO_STALL_SECONDS",
    help="Give up (exit 1, saying what is stuck) when no exchange is folded for this many seconds.",
)
def demo(stall_timeout: float) -> None:
    """Replay a bundled multi-day agent conversation with real workers and show what the agent keeps."""
    from summarizer.ingest.reader import read_records

    console = Console(soft_wrap=True)
    os.environ.setdefault("SUMMARIZER_WINDOW_TOKENS", str(DEMO_WINDOW_TOKENS))  # the worker inherits it
    rt = open_runtime(migrate=True)  # the demo sets up whatever database it is pointed at
    where = (
        "embedded SQLite + embedded broker" if rt.settings.embedded_database else "the configured database"
    )
    console.print(f"summarizer demo on {where}; summaries by the {chosen_llm(rt.settings)} LLM")
    records = [
        (r.agent_id, r.message)
        for r in read_records(str(sample_path()), "canonical", None, rt.settings.max_message_bytes)
    ]
    days = by_day(rebased(records, datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)))
    try:
        with worker_process(console) as worker:
            stored, evicted = replay(rt, console, days)
            wait_for_summaries(rt, console, worker, evicted, stall_timeout)
    except KeyboardInterrupt:
        console.print("interrupted: the worker was stopped; what was recorded stays recorded")
        sys.exit(130)
    aging = rt.update_service().age(datetime.now(UTC), DEMO_AGENT)
    console.print(
        f"replayed {len(records)} message(s) over {len(days)} day(s) ({len(records) - stored} already stored); "
        f"{evicted} exchange(s) left the window and "
        f"were summarized; aging moved {aging.moved} item(s) and dropped {aging.dropped} older than {KEEP_FOR_DAYS} days"
    )
    now = datetime.now(UTC)
    record = rt.summarizer.summary(DEMO_AGENT)
    console.rule("summary")
    console.print(render_summary(record, now) if record else "(no summary)", markup=False, highlight=False)
    console.rule("history")
    console.print(history_text(rt.summarizer.history(DEMO_AGENT), now), markup=False, highlight=False)
    print_dashboard(rt, console)


def print_dashboard(rt: Runtime, console: Console) -> None:
    from summarizer.cli.commands_ops import stats_text

    figures = rt.operations().stats(timedelta(hours=1).total_seconds())
    console.rule("summary updates")
    counts_tokens = chosen_llm(rt.settings) is not LLMChoice.OFFLINE
    text = stats_text(figures, "hour", counts_tokens=counts_tokens)
    console.print(text, markup=False, highlight=False)
