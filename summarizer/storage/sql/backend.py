"""The record each database backend fills in for the factory (storage/backends.py): how to recognise its
URLs, its statement pieces (`SqlDialect`, storage/sql/dialect.py), how to open its handle and build its
store. Each backend package exports one (storage/sqlite/backend.py, storage/postgres/backend.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import URL

from summarizer.storage.sql.database import Database
from summarizer.storage.sql.dialect import SqlDialect
from summarizer.storage.sql.stores.store import SqlStore


@dataclass(frozen=True, slots=True)
class ConnectOptions:
    """How to connect, whichever backend the URL names (each backend takes the options that concern it)."""

    echo: bool
    pool_size: int
    ping_after_idle: float
    prepare_threshold: int | None
    connect_timeout: int
    statement_timeout: float


@dataclass(frozen=True, slots=True)
class Backend:
    """One database backend, as the factory chooses it: by the URL's scheme, once."""

    name: str
    """The URL scheme's database name (``sqlite``, ``postgresql``; a ``+driver`` suffix is ignored)."""
    dialect: SqlDialect
    open: Callable[[URL, ConnectOptions], Database]
    """The database handle for a URL of this backend."""
    store: Callable[[Database], SqlStore[Any]]
    """The storage port's update and operator store over a handle `open` returned."""

    def matches(self, url: URL) -> bool:
        return url.get_backend_name() == self.name
