"""A throwaway, migrated database for a benchmark run: PostgreSQL, or SQLite in a temporary folder."""

from __future__ import annotations

import os
import secrets
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.migrations import upgrade

DEFAULT_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def admin_url() -> str:
    return os.environ.get("SUMMARIZER_BENCH_DATABASE_URL", DEFAULT_ADMIN_URL)


def database_url(name: str) -> str:
    """The URL of database `name` on the benchmark server."""
    return make_url(admin_url()).set(database=name).render_as_string(hide_password=False)


@contextmanager
def scratch_postgres(prefix: str = "summarizer_bench", *, keep: bool = False) -> Iterator[Database]:
    """A new migrated database, dropped afterwards unless `keep` (then its name is printed)."""
    admin = create_engine(admin_url(), isolation_level="AUTOCOMMIT")
    name = f"{prefix}_{secrets.token_hex(3)}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    db = connect_database(database_url(name))
    try:
        upgrade(db)
        yield db
    finally:
        db.dispose()
        if keep:
            print(f"kept database {name}", file=sys.stderr)
        else:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def scratch_database(kind: str, prefix: str = "summarizer_bench") -> Iterator[Database]:
    """A new migrated database of `kind` ("postgresql", or else SQLite), removed afterwards."""
    if kind == "postgresql":
        with scratch_postgres(prefix) as pg:
            yield pg
        return
    from summarizer.composition import build_database
    from summarizer.settings import LLMChoice, Settings

    with tempfile.TemporaryDirectory(prefix=f"{prefix}-") as tmp:
        db = build_database(
            Settings(data_dir=Path(tmp), database_url="", broker_url="", llm=LLMChoice.OFFLINE)
        )
        upgrade(db)
        try:
            yield db
        finally:
            db.dispose()
