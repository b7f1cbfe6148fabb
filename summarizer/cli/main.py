"""The `summarizer` command: one group, subcommands in sibling modules, errors mapped to exit codes."""

from __future__ import annotations

import sys

import click

from summarizer.cli.commands_conversation import agent, context, history, ingest
from summarizer.cli.commands_db import db
from summarizer.cli.commands_demo import demo
from summarizer.cli.commands_flower import flower
from summarizer.cli.commands_ops import alerts, stats
from summarizer.cli.commands_summary import age, summary
from summarizer.cli.commands_worker import beat, drain, queue_command, requeue, worker
from summarizer.domain.errors import InvalidMessage, SummarizerError
from summarizer.logs import configure_logging
from summarizer.settings import SettingsError

EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="summarizer")
def cli() -> None:
    """Sliding-window conversation store and background summary workers for long-running LLM agents."""


for command in (
    db,
    ingest,
    history,
    context,
    agent,
    demo,
    summary,
    age,
    worker,
    beat,
    drain,
    queue_command,
    requeue,
    flower,
    stats,
    alerts,
):
    cli.add_command(command)


def main() -> None:
    configure_logging(level="WARNING")
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except (InvalidMessage, SettingsError) as exc:
        click.echo(f"error: {exc}" if isinstance(exc, SettingsError) else str(exc), err=True)
        sys.exit(EXIT_BAD_INPUT)
    except SummarizerError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_FAILURE)
