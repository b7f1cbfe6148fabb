"""The PostgreSQL pool pings a connection only after it sat idle, and recovers from a dead one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database


def _backend_pid(db: Database) -> int:
    with db.read() as conn:
        return int(conn.execute(text("SELECT pg_backend_pid()")).scalar_one())


def _kill(postgres_url: str, pid: int) -> None:
    killer = connect_database(postgres_url, pool_size=1)
    try:
        with killer.write() as conn:
            assert conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar_one()
    finally:
        killer.dispose()


@pytest.fixture
def single(postgres_url: str, request: pytest.FixtureRequest) -> Iterator[Database]:
    db = connect_database(postgres_url, pool_size=1, ping_after_idle=request.param)
    yield db
    db.dispose()


@pytest.mark.parametrize("single", [0.0], indirect=True)
def test_an_idle_connection_killed_by_the_server_is_replaced_before_use(
    single: Database, postgres_url: str
) -> None:
    before = _backend_pid(single)
    _kill(postgres_url, before)
    after = _backend_pid(single)  # the checkout ping found it dead: a new connection, no error
    assert after != before


@pytest.mark.parametrize("single", [3600.0], indirect=True)
def test_a_recently_used_connection_is_not_pinged_and_a_dead_one_costs_one_failure(
    single: Database, postgres_url: str
) -> None:
    before = _backend_pid(single)
    _kill(postgres_url, before)
    with pytest.raises(OperationalError):
        _backend_pid(single)  # used a moment ago: no ping, so the statement meets the dead connection
    assert _backend_pid(single) != before  # the failure discarded the pool; the next checkout reconnects
