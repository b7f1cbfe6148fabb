"""The `summarizer` command: one group, subcommands in sibling modules, errors mapped to exit codes."""

from __future__ import annotations

import importlib
import sys

import click

from summarizer.domain.errors import InvalidMessage, SummarizerError
from summarizer.logs import configure_logging
from summarizer.settings import SettingsError

EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2

COMMANDS: dict[str, str] = {
    "db": "summarizer.cli.commands_db:db",
    "ingest": "summarizer.cli.commands_conversation:ingest",
    "history": "summarizer.cli.commands_conversation:history",
    "recall": "summarizer.cli.commands_recall:recall",
    "mcp": "summarizer.cli.commands_mcp:mcp",
    "watch": "summarizer.cli.commands_watch:watch",
    "hook": "summarizer.cli.commands_hook:hook",
    "context": "summarizer.cli.commands_conversation:context",
    "agent": "summarizer.cli.commands_conversation:agent",
    "agents": "summarizer.cli.commands_agents:agents",
    "summary": "summarizer.cli.commands_summary:summary",
    "age": "summarizer.cli.commands_summary:age",
    "provenance": "summarizer.cli.commands_provenance:provenance",
    "diff": "summarizer.cli.commands_provenance:diff",
    "rollback": "summarizer.cli.commands_provenance:rollback",
    "resummarize": "summarizer.cli.commands_provenance:resummarize",
    "versions": "summarizer.cli.commands_provenance:versions",
    "pin": "summarizer.cli.commands_pins:pin",
    "unpin": "summarizer.cli.commands_pins:unpin",
    "pins": "summarizer.cli.commands_pins:pins",
    "demo": "summarizer.cli.commands_demo:demo",
    "worker": "summarizer.cli.commands_worker:worker",
    "beat": "summarizer.cli.commands_worker:beat",
    "drain": "summarizer.cli.commands_worker:drain",
    "queue": "summarizer.cli.commands_worker:queue_command",
    "requeue": "summarizer.cli.commands_worker:requeue",
    "flower": "summarizer.cli.commands_flower:flower",
    "stats": "summarizer.cli.commands_ops:stats",
    "alerts": "summarizer.cli.commands_ops:alerts",
    "doctor": "summarizer.cli.commands_doctor:doctor",
    "serve": "summarizer.cli.commands_serve:serve",
    "metrics": "summarizer.cli.commands_metrics:metrics",
    "cost": "summarizer.cli.commands_cost:cost",
}

SUBCOMMANDS: dict[str, tuple[str, ...]] = {
    "agent": ("summarizer.cli.commands_cost:agent_budget_cost",),
}
"""Subcommands kept in another module than their group's, added to it when the group is loaded."""


class LazyGroup(click.Group):
    """Imports a command's module only when that command runs, so `summarizer ingest` never pays for
    the LLM SDK or Celery: every invocation starts in a fraction of the time."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        command = _load(target)
        if isinstance(command, click.Group):
            for extra in SUBCOMMANDS.get(cmd_name, ()):
                sub = _load(extra)
                if sub.name not in command.commands:
                    command.add_command(sub)
        return command


def _load(target: str) -> click.Command:
    module_name, _, attribute = target.partition(":")
    command = getattr(importlib.import_module(module_name), attribute)
    assert isinstance(command, click.Command)
    return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tiered-summarizer")
def cli() -> None:
    """Sliding-window conversation store and background summary workers for long-running LLM agents."""


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
    except Exception as exc:
        from summarizer import composition

        outage = composition.database_outage(exc)
        if outage is None:
            raise
        click.echo(f"error: {outage}", err=True)
        sys.exit(EXIT_FAILURE)
