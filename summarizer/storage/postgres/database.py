"""The PostgreSQL backend's database handle: two pools, pings only after idleness, and `run_hot`.

PostgreSQL writers lock the rows they change (``SELECT ... FOR UPDATE``) in the statements themselves.

A pooled connection is pinged before use only when it sat idle for PING_AFTER_IDLE_S: that is when a
server restart, an idle timeout or a dropped NAT entry can have killed it unnoticed. A busy worker reuses
its connections within milliseconds, and a ping on every checkout was two of an update's round trips. A
connection that dies while in use fails its statement either way; SQLAlchemy then discards the whole
pool, so the next checkout connects afresh. The update's hot statements (`run_hot`) go one better: they
are sent again, once, on a live connection.

Autocommit statements get a pool of their own, whose connections are set to autocommit once, when they
connect. Switching a shared connection's isolation level on every checkout, and back on every return,
cost more CPU than the checkout itself; an update makes three such checkouts. The second pool connects
lazily, so a process that never runs autocommit statements never opens its connections. Its sessions use
the UTC time zone, so psycopg itself returns timestamps in UTC and the hot statements (`run_hot`,
storage/sql/statements/driver_statements.py) need no result conversion. Both pools' connections wait a bounded
time for the server (storage/postgres/timeouts.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import URL, Connection, Engine, create_engine, event
from sqlalchemy.exc import DBAPIError, InvalidatePoolError

from summarizer.storage.postgres.dialect import POSTGRES
from summarizer.storage.postgres.timeouts import Timeouts
from summarizer.storage.sql.database import DEFAULT_PREPARE_THRESHOLD, PING_AFTER_IDLE_S, Database
from summarizer.storage.sql.statements.driver_statements import DriverStatement

_RETURNED_AT = "summarizer_returned_at"


class _SecondReport(logging.Filter):
    """Drops psycopg's warning that a pipeline could not be closed after a statement in it failed (a
    batch insert refused a value): the statement's own error is raised and reported by its caller; this
    second report would be a stray line on a command's stderr."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("error ignored terminating")


logging.getLogger("psycopg").addFilter(_SecondReport())


class PostgresDatabase(Database):
    dialect = POSTGRES

    def __init__(
        self,
        url: URL,
        *,
        echo: bool = False,
        pool_size: int = 5,
        ping_after_idle: float = PING_AFTER_IDLE_S,
        prepare_threshold: int | None = DEFAULT_PREPARE_THRESHOLD,
        timeouts: Timeouts | None = None,
    ) -> None:
        self._prepare_threshold = prepare_threshold
        self.timeouts = timeouts or Timeouts()
        url = self.timeouts.url(url)
        super().__init__(url, self._engine(url, echo, pool_size))
        self._autocommit = self._engine(url, echo, pool_size, autocommit=True)
        self._engine_ping = _CheckoutPing(self.engine, ping_after_idle)
        self._autocommit_ping = _CheckoutPing(self._autocommit, ping_after_idle)

    def _engine(self, url: URL, echo: bool, pool_size: int, *, autocommit: bool = False) -> Engine:
        connect_args: dict[str, Any] = {"prepare_threshold": self._prepare_threshold}
        options: dict[str, Any] = {}
        if autocommit:
            connect_args["options"] = self.timeouts.options(url, "-c TimeZone=UTC")
            options = {"isolation_level": "AUTOCOMMIT"}
        elif session_options := self.timeouts.options(url):
            connect_args["options"] = session_options
        return create_engine(
            url,
            echo=echo,
            pool_size=pool_size,
            max_overflow=pool_size,
            connect_args=connect_args,
            **options,
        )

    @contextmanager
    def autocommit(self, *, write: bool) -> Iterator[Connection]:
        """A connection on which every statement commits on its own: no BEGIN and COMMIT round trips.
        For a write that is one statement, and for reads that need no common snapshot."""
        with self._autocommit.connect() as conn:
            yield conn

    def run_hot(self, statement: DriverStatement, params: dict[str, Any]) -> list[Any]:
        """Run `statement` on a pooled autocommit connection through psycopg alone; its rows as
        named tuples. Driver errors come out as SQLAlchemy's, as from `Connection.execute`.

        A connection the error shows dead is discarded, the pool's other connections are pinged before
        their next use, and the statement is sent once more on a live one, so a database restart costs no
        update. Only statements that are safe to send twice belong here: the update's read; its claim
        (had the first landed, the row stays claimed until its lease runs out, as after a worker crash);
        its commit (whose claim check refuses a second landing).
        """
        try:
            return self._run_hot_once(statement, params)
        except DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
        return self._run_hot_once(statement, params)

    def _run_hot_once(self, statement: DriverStatement, params: dict[str, Any]) -> list[Any]:
        import psycopg  # here, not at the top: a process on SQLite never loads the driver
        from psycopg.rows import namedtuple_row

        engine, ping = self._autocommit, self._autocommit_ping
        raw = engine.raw_connection()
        try:
            driver: psycopg.Connection[Any] = raw.driver_connection  # type: ignore[assignment]
            with driver.cursor(row_factory=namedtuple_row) as cursor:
                cursor.execute(statement.sql, statement.parameters(params))
                return cursor.fetchall()
        except psycopg.Error as exc:
            dead = engine.dialect.is_disconnect(exc, raw.dbapi_connection, None)  # type: ignore[arg-type]
            if dead:  # the others went with it, most likely: ping them before use
                raw.invalidate(exc)
                ping.suspect_all()
            raise DBAPIError.instance(
                statement.sql, params, exc, psycopg.Error, connection_invalidated=dead, dialect=engine.dialect
            ) from exc
        finally:
            raw.close()

    def dispose(self) -> None:
        super().dispose()
        self._autocommit.dispose()


class _CheckoutPing:
    """Ping a pooled connection on checkout if it was returned more than `idle_seconds` ago, or before a
    connection of the same pool was found dead (`suspect_all`); a dead one makes the pool throw away every
    connection it holds and connect afresh (SQLAlchemy retries the checkout)."""

    def __init__(self, engine: Engine, idle_seconds: float) -> None:
        self.idle_seconds = idle_seconds
        self.suspect_before = float("-inf")
        self._dialect = engine.dialect
        event.listen(engine, "checkin", self._returned)
        event.listen(engine, "checkout", self._checkout)

    def suspect_all(self) -> None:
        """Every connection now in the pool gets pinged before its next use."""
        self.suspect_before = time.monotonic()

    def _returned(self, _dbapi_conn: Any, record: Any) -> None:
        record.info[_RETURNED_AT] = time.monotonic()

    def _checkout(self, dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        returned = record.info.get(_RETURNED_AT)
        if returned is None:
            return  # fresh from connect()
        if returned >= self.suspect_before and time.monotonic() - returned < self.idle_seconds:
            return  # used a moment ago
        try:
            self._dialect.do_ping(dbapi_conn)
        except Exception as exc:
            raise InvalidatePoolError(f"pooled connection found dead on checkout: {exc}") from exc
