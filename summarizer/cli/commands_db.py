"""`summarizer db ...`: schema migrations."""

from __future__ import annotations

import click

from summarizer import composition
from summarizer.cli.runtime import current_settings


@click.group()
def db() -> None:
    """Database schema migrations (Alembic)."""


@db.command()
@click.argument("revision", default="head")
def upgrade(revision: str) -> None:
    """Upgrade the schema to REVISION (default: the newest)."""
    schema = composition.build_schema(current_settings())
    schema.upgrade(revision)
    click.echo(f"database at {schema.current()}")


@db.command()
@click.argument("revision", default="-1")
def downgrade(revision: str) -> None:
    """Downgrade the schema to REVISION (default: one step back; 'base' removes every table)."""
    schema = composition.build_schema(current_settings())
    schema.downgrade(revision)
    click.echo(f"database at {schema.current() or 'base'}")


@db.command()
def current() -> None:
    """Print the schema revision of the configured database."""
    click.echo(composition.build_schema(current_settings()).current() or "base (no schema)")
