"""`summarizer demo`: the main job on the embedded default.

It replays the bundled multi-day coding-agent conversation as if it had just happened (timestamps shifted
so the last message is "now"), day by day, through the sliding window; the summary workers fold what
leaves the window into the tiered summary; then it ages the summary as of today and prints the summary
and the history view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from itertools import groupby

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from summarizer.cli.runtime import open_runtime
from summarizer.composition import build_update_service, render_summary
from summarizer.domain.messages import NewMessage
from summarizer.storage.reading import load_summary
from summarizer.views import history_text

DEMO_AGENT = "demo-agent"


def rebased(records: Sequence[tuple[str, NewMessage]], end: datetime) -> list[tuple[str, NewMessage]]:
    """The same conversation moved in time so that its last message happens at `end`."""
    last = max(m.created_at for _, m in records if m.created_at is not None)
    shift = end - last
    return [(a, replace(m, created_at=m.created_at + shift if m.created_at else None)) for a, m in records]


def by_day(records: Sequence[tuple[str, NewMessage]]) -> list[tuple[date, list[tuple[str, NewMessage]]]]:
    def day(record: tuple[str, NewMessage]) -> date:
        created = record[1].created_at
        assert created is not None
        return created.date()

    return [(d, list(group)) for d, group in groupby(records, key=day)]


@click.command()
def demo() -> None:
    """Replay the bundled multi-day coding-agent conversation and show what the agent keeps of it."""
    from summarizer.ingest.reader import read_records
    from summarizer.samples import sample_path

    console = Console()
    rt = open_runtime()
    records = [
        (r.agent_id, r.message)
        for r in read_records(str(sample_path()), "canonical", None, rt.settings.max_message_bytes)
    ]
    now = datetime.now(UTC).replace(microsecond=0)
    days = by_day(rebased(records, now - timedelta(minutes=5)))
    service = build_update_service(rt.settings, rt.db)
    stored = skipped = evicted = updates = 0
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    ) as progress:
        task = progress.add_task("replaying", total=len(records))
        for day, chunk in days:
            progress.update(task, description=f"replaying {day:%a %d %b}")
            report = rt.summarizer.record_many(chunk)
            stored, skipped = stored + report.stored, skipped + report.skipped
            evicted += report.evicted_exchanges
            updates += service.drain().runs
            progress.advance(task, len(chunk))
        updates += service.drain().runs
    aged = service.age_all()
    console.print(
        f"replayed {stored} message(s) over {len(days)} day(s) ({skipped} already stored); "
        f"{evicted} exchange(s) left the window; {updates} summary update(s); {aged} summary aged"
    )
    with rt.db.read() as conn:
        record = load_summary(conn, DEMO_AGENT)
    console.rule("summary")
    console.print(render_summary(record, datetime.now(UTC)) if record else "(no summary)", markup=False)
    console.rule("history")
    console.print(history_text(rt.summarizer.history(DEMO_AGENT), datetime.now(UTC)), markup=False)
