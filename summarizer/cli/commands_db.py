"""`summarizer db ...`: schema migrations."""

from __future__ import annotations

import click

from summarizer import composition
from summarizer.composition import build_database
from summarizer.storage import migrations


@click.group()
def db() -> None:
    """Database schema migrations (Alembic)."""


@db.command()
@click.argument("revision", default="head")
def upgrade(revision: str) -> None:
    """Upgrade the schema to REVISION (default: the newest)."""
    database = build_database(composition.load())
    migrations.upgrade(database, revision)
    click.echo(f"database at {migrations.current_revision(database)}")


@db.command()
@click.argument("revision", default="-1")
def downgrade(revision: str) -> None:
    """Downgrade the schema to REVISION (default: one step back; 'base' removes every table)."""
    database = build_database(composition.load())
    migrations.downgrade(database, revision)
    click.echo(f"database at {migrations.current_revision(database) or 'base'}")


@db.command()
def current() -> None:
    """Print the schema revision of the configured database."""
    database = build_database(composition.load())
    click.echo(migrations.current_revision(database) or "base (no schema)")
