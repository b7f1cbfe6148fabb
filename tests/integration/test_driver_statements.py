"""Hot statements run by psycopg alone: the same values and errors as through SQLAlchemy, and a dead
connection costs no failed update: the statement is sent again on a live one."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import bindparam, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, ProgrammingError

from summarizer.storage.postgres.database import PostgresDatabase
from summarizer.storage.sql.statements.driver_statements import DriverStatement
from summarizer.storage.sql.statements.schema import summary_runs
from summarizer.storage.sql.statements.types import UTCDateTime

BACKEND = DriverStatement(select(func.pg_backend_pid().label("pid")))
ECHO_TIME = DriverStatement(select(bindparam("at", type_=UTCDateTime()).label("at"), func.now().label("now")))


@pytest.fixture
def db(postgres_url: str) -> Iterator[PostgresDatabase]:
    database = PostgresDatabase(
        make_url(postgres_url), pool_size=2, ping_after_idle=3600.0
    )  # no ping for being idle
    yield database
    database.dispose()


def test_rows_are_named_tuples_with_timestamps_in_utc(db: PostgresDatabase) -> None:
    given = datetime(2026, 3, 1, 12, 30, tzinfo=UTC)
    [row] = db.run_hot(ECHO_TIME, {"at": given})
    assert row.at == given
    assert row.at.tzinfo is UTC
    assert row.now.tzinfo is UTC


def test_values_go_through_the_column_types_bind_processing(db: PostgresDatabase) -> None:
    with pytest.raises(ValueError, match="naive datetime"):
        db.run_hot(ECHO_TIME, {"at": datetime(2026, 3, 1, 12, 30)})


def test_a_missing_or_unknown_parameter_is_named_before_anything_is_sent() -> None:
    with pytest.raises(KeyError, match=r"needs values for \['at'\]"):
        ECHO_TIME.parameters({})
    with pytest.raises(KeyError, match=r"does not take: \['when'\]"):
        ECHO_TIME.parameters({"at": datetime.now(UTC), "when": 1})


def test_a_failing_statement_raises_sqlalchemys_error_and_leaves_the_connection_usable(
    db: PostgresDatabase,
) -> None:
    missing_column = DriverStatement(select(summary_runs.c.id).where(text("no_such_column = 1")))
    with pytest.raises(ProgrammingError) as raised:
        db.run_hot(missing_column, {})
    assert isinstance(raised.value, DBAPIError)
    assert not raised.value.connection_invalidated
    assert "no_such_column" in str(raised.value)
    assert db.run_hot(BACKEND, {})[0].pid > 0


def _pooled_backends(db: PostgresDatabase) -> set[int]:
    """Check two connections out of the autocommit pool at once, so that both stay in it."""
    with db.autocommit(write=False) as first, db.autocommit(write=False) as second:
        return {int(conn.execute(text("SELECT pg_backend_pid()")).scalar_one()) for conn in (first, second)}


def _kill(postgres_url: str, backends: set[int]) -> None:
    killer = PostgresDatabase(make_url(postgres_url), pool_size=1)
    try:
        with killer.write() as conn:
            for pid in backends:
                assert conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar_one()
    finally:
        killer.dispose()


def test_a_statement_that_meets_a_dead_connection_is_sent_again_on_a_live_one(
    db: PostgresDatabase, postgres_url: str
) -> None:
    backends = _pooled_backends(db)
    assert len(backends) == 2
    _kill(postgres_url, backends)
    # Used a moment ago, so not pinged: the first attempt meets a dead connection; the retry's checkout
    # pings the other pooled one, now suspect and dead too, and the pool connects afresh.
    assert db.run_hot(BACKEND, {})[0].pid not in backends
