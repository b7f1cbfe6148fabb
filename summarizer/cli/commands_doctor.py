"""`summarizer doctor`: is this setup able to run? One line per check, exit 1 when any fails."""

from __future__ import annotations

import sys

import click

from summarizer.cli.runtime import current_settings


@click.command()
def doctor() -> None:
    """Check the LLM provider, the database, its schema and the broker; one line each."""
    from summarizer.doctor import run_checks

    checks = run_checks(current_settings())
    for check in checks:
        click.echo(check.line())
    sys.exit(0 if all(c.ok for c in checks) else 1)
