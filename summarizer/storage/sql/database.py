"""The database handle every SQL module works through.

`Database` is what both backends offer alike: read and write transactions that mean the same on each,
connections whose statements commit on their own, and `dispose`; and its backend's statement pieces
(`dialect`). `storage/backends.connect_database` picks the backend for a URL.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import ClassVar

from sqlalchemy import URL, Connection, Engine

from summarizer.storage.sql.dialect import SqlDialect

PING_AFTER_IDLE_S = 5.0
DEFAULT_PREPARE_THRESHOLD = 5  # psycopg's own default


class Database(ABC):
    """One per process: an engine, and transactions of the two kinds the store needs."""

    dialect: ClassVar[SqlDialect]
    url: URL
    engine: Engine

    def __init__(self, url: URL, engine: Engine) -> None:
        self.url = url
        self.engine = engine
        self._writer = engine.execution_options(summarizer_write=True)

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A transaction for changes: committed on success, rolled back whole on any error."""
        with self._writer.begin() as conn:
            yield conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A transaction that only reads; takes no locks on either backend."""
        with self.engine.connect() as conn, conn.begin():
            yield conn

    @abstractmethod
    def autocommit(self, *, write: bool) -> AbstractContextManager[Connection]:
        """A connection on which every statement commits on its own."""

    def dispose(self) -> None:
        self.engine.dispose()
