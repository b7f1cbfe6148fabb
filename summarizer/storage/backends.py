"""The database backends, and the one place one is chosen: `connect_database` matches the URL against
BACKENDS once (storage/sqlite/backend.py, storage/postgres/backend.py) and opens that backend's handle;
`store_for` builds the store of the backend a handle belongs to. Nothing else in the tree asks which
database it is on: shared SQL calls the chosen backend's hooks (`SqlDialect`, storage/sql/dialect.py)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import make_url

from summarizer.domain.errors import SummarizerError
from summarizer.storage.postgres.backend import BACKEND as POSTGRES
from summarizer.storage.postgres.timeouts import CONNECT_TIMEOUT_S, STATEMENT_TIMEOUT_S
from summarizer.storage.sql.backend import Backend, ConnectOptions
from summarizer.storage.sql.database import DEFAULT_PREPARE_THRESHOLD, PING_AFTER_IDLE_S, Database
from summarizer.storage.sql.stores.store import SqlStore
from summarizer.storage.sqlite.backend import BACKEND as SQLITE

BACKENDS: tuple[Backend, ...] = (SQLITE, POSTGRES)


def backend_for(url: str) -> Backend:
    """The backend whose URLs look like `url`; a clear error for a database no backend serves."""
    parsed = make_url(url)
    for backend in BACKENDS:
        if backend.matches(parsed):
            return backend
    names = ", ".join(f"{b.name}://" for b in BACKENDS)
    raise SummarizerError(
        f"the database URL names {parsed.get_backend_name()!r}, which is not supported (use {names})"
    )


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
    """The database handle for `url`: SQLite for ``sqlite://`` URLs, PostgreSQL (psycopg 3) for
    ``postgresql://`` ones.

    `pool_size`, `ping_after_idle` and `prepare_threshold` only concern PostgreSQL: psycopg prepares a
    statement on the server after `prepare_threshold` runs on one connection; None never (behind PgBouncer
    in transaction mode, see docs/scaling.md). PostgreSQL must answer a connection within
    `connect_timeout` seconds and finish each statement within `statement_timeout` (0: no limit); SQLite
    waits for another process's write lock up to its busy timeout."""
    options = ConnectOptions(
        echo=echo,
        pool_size=pool_size,
        ping_after_idle=ping_after_idle,
        prepare_threshold=prepare_threshold,
        connect_timeout=connect_timeout,
        statement_timeout=statement_timeout,
    )
    return backend_for(url).open(make_url(url), options)


def store_for(db: Database) -> SqlStore[Any]:
    """The storage port's update and operator store for `db`, built by the backend that opened it."""
    backend = next((b for b in BACKENDS if b.dialect is db.dialect), None)
    if backend is None:
        raise TypeError(f"no storage backend opened {type(db).__name__}")
    return backend.store(db)
