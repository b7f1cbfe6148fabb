"""A throwaway, migrated PostgreSQL database for a benchmark run."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.migrations import upgrade

DEFAULT_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@contextmanager
def scratch_postgres(prefix: str = "summarizer_bench") -> Iterator[Database]:
    admin_url = os.environ.get("SUMMARIZER_BENCH_DATABASE_URL", DEFAULT_ADMIN_URL)
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    name = f"{prefix}_{secrets.token_hex(3)}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    db = connect_database(make_url(admin_url).set(database=name).render_as_string(hide_password=False))
    try:
        upgrade(db)
        yield db
    finally:
        db.dispose()
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
