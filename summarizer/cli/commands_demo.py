"""`summarizer demo`: the main job on the embedded default."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from summarizer.cli.runtime import open_runtime
from summarizer.views import history_text


@click.command()
@click.option("--agent", "agent_id", default="demo-agent", show_default=True)
def demo(agent_id: str) -> None:
    """Replay the bundled multi-day coding-agent conversation through the sliding window."""
    from summarizer.ingest.reader import read_records
    from summarizer.samples import sample_path

    rt = open_runtime()
    records = [
        (r.agent_id, r.message)
        for r in read_records(
            str(sample_path()),
            "canonical",
            default_agent=agent_id,
            max_message_bytes=rt.settings.max_message_bytes,
        )
    ]
    report = rt.summarizer.record_many(records)
    click.echo(
        f"replayed {report.stored} message(s) ({report.skipped} already stored), "
        f"{report.evicted_exchanges} exchange(s) evicted"
    )
    for name in report.agents:
        click.echo("")
        click.echo(history_text(rt.summarizer.history(name), datetime.now(UTC)))
