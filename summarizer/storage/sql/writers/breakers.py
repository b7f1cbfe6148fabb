"""Provider circuit breakers in the database (both backends): each transition is one guarded UPDATE,
so when several workers see the same outage only one opens the breaker and raises its alert, and only one
takes each probe."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import RowMapping, select, update
from sqlalchemy.engine import Connection

from summarizer.domain.breaker_state import CLOSED, OPEN, PROVIDER_DOWN, BreakerState
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import provider_breakers as table
from summarizer.storage.sql.statements.upserts import for_connection, per_database
from summarizer.storage.sql.writers import alerts


def _state(m: RowMapping) -> BreakerState:
    return BreakerState(
        provider=m["provider"],
        state=m["state"],
        fault=m["fault"],
        last_error=m["last_error"],
        opened_at=m["opened_at"],
        probe_at=m["probe_at"],
        probe_until=m["probe_until"],
        backoff_seconds=float(m["backoff_seconds"]),
        probes=int(m["probes"]),
    )


def load(conn: Connection, provider: str) -> BreakerState | None:
    row = conn.execute(select(table).where(table.c.provider == provider)).mappings().first()
    return _state(row) if row is not None else None


def list_breakers(conn: Connection) -> list[BreakerState]:
    return [_state(m) for m in conn.execute(select(table).order_by(table.c.provider)).mappings()]


_ENSURE_ROW = per_database(lambda insert: insert(table).on_conflict_do_nothing(index_elements=["provider"]))


def _ensure_row(conn: Connection, provider: str, now: datetime) -> None:
    values: dict[str, Any] = {
        "provider": provider,
        "state": CLOSED,
        "backoff_seconds": 0.0,
        "probes": 0,
        "updated_at": now,
    }
    conn.execute(for_connection(conn, _ENSURE_ROW).values(**values))


def _next_probe(*, error: str, now: datetime, probe_at: datetime, backoff: float) -> dict[str, Any]:
    """What an open breaker waits with after a failure (the one that opened it, or a failed probe): the
    error, the next probe at `probe_at` after `backoff` seconds, no probe under way."""
    return {
        "last_error": error,
        "probe_at": probe_at,
        "probe_until": None,
        "backoff_seconds": backoff,
        "updated_at": now,
    }


class SqlBreakerStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def load(self, provider: str) -> BreakerState | None:
        with self.db.read() as conn:
            return load(conn, provider)

    def open(
        self, provider: str, *, fault: str, error: str, now: datetime, probe_at: datetime, backoff: float
    ) -> bool:
        with self.db.write() as conn:
            _ensure_row(conn, provider, now)
            opened = conn.execute(
                update(table)
                .where(table.c.provider == provider, table.c.state == CLOSED)
                .values(
                    state=OPEN,
                    fault=fault,
                    opened_at=now,
                    probes=0,
                    **_next_probe(error=error, now=now, probe_at=probe_at, backoff=backoff),
                )
            ).rowcount
            if not opened:
                return False
            alerts.raise_once(
                conn,
                kind=PROVIDER_DOWN,
                agent_id=None,
                message=f"LLM provider {provider!r} unavailable ({fault}): {error}; every update is paused",
                details={"provider": provider, "fault": fault, "error": error},
                now=now,
            )
            return True

    def take_probe(self, provider: str, *, now: datetime, until: datetime) -> bool:
        with self.db.write() as conn:
            taken = conn.execute(
                update(table)
                .where(
                    table.c.provider == provider,
                    table.c.state == OPEN,
                    table.c.probe_at <= now,
                    (table.c.probe_until.is_(None)) | (table.c.probe_until <= now),
                )
                .values(probe_until=until, updated_at=now)
            ).rowcount
            return bool(taken)

    def release_probe(self, provider: str, *, now: datetime) -> None:
        with self.db.write() as conn:
            conn.execute(
                update(table)
                .where(table.c.provider == provider, table.c.state == OPEN)
                .values(probe_until=None, updated_at=now)
            )

    def list_all(self) -> list[BreakerState]:
        with self.db.read() as conn:
            return list_breakers(conn)

    def probe_failed(
        self, provider: str, *, error: str, now: datetime, probe_at: datetime, backoff: float
    ) -> None:
        with self.db.write() as conn:
            conn.execute(
                update(table)
                .where(table.c.provider == provider, table.c.state == OPEN)
                .values(
                    probes=table.c.probes + 1,
                    **_next_probe(error=error, now=now, probe_at=probe_at, backoff=backoff),
                )
            )

    def close(self, provider: str, *, now: datetime) -> bool:
        with self.db.write() as conn:
            closed = conn.execute(
                update(table)
                .where(table.c.provider == provider, table.c.state == OPEN)
                .values(state=CLOSED, probe_until=None, updated_at=now)
            ).rowcount
            if not closed:
                return False
            alerts.resolve(conn, kind=PROVIDER_DOWN, agent_id=None, now=now)
            return True
