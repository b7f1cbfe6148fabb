"""The one factory that picks a database backend: `connect_database` reads the URL's scheme and returns
the SQLite backend (storage/sqlite/database.py) or the PostgreSQL backend (storage/postgres/database.py);
nothing else in the tree asks which database it is on."""

from __future__ import annotations

from sqlalchemy.engine import make_url

from summarizer.storage.postgres.database import PostgresDatabase
from summarizer.storage.postgres.timeouts import CONNECT_TIMEOUT_S, STATEMENT_TIMEOUT_S, Timeouts
from summarizer.storage.sql.database import DEFAULT_PREPARE_THRESHOLD, PING_AFTER_IDLE_S, Database
from summarizer.storage.sqlite.database import SqliteDatabase


def connect_database(
    url: str,
    *,
    echo: bool = False,
    pool_size: int = 5,
    ping_after_idle: float = PING_AFTER_IDLE_S,
    prepare_threshold: int | None = DEFAULT_PREPARE_THRESHOLD,
    connect_timeout: int = CONNECT_TIMEOUT_S,
    statement_timeout: float = STATEMENT_TIMEOUT_S,
) -> Database:
    """The backend for `url`: SQLite for ``sqlite://`` URLs, PostgreSQL (psycopg 3) for the rest.

    `pool_size`, `ping_after_idle` and `prepare_threshold` only concern PostgreSQL: psycopg prepares a
    statement on the server after `prepare_threshold` runs on one connection; None never (behind PgBouncer
    in transaction mode, see docs/scaling.md). PostgreSQL must answer a connection within
    `connect_timeout` seconds and finish each statement within `statement_timeout` (0: no limit); SQLite
    waits for another process's write lock up to its busy timeout."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return SqliteDatabase(parsed, echo=echo)
    return PostgresDatabase(
        parsed,
        echo=echo,
        pool_size=pool_size,
        ping_after_idle=ping_after_idle,
        prepare_threshold=prepare_threshold,
        timeouts=Timeouts(connect_timeout, statement_timeout),
    )
