"""SUMMARIZER_DATABASE_PREPARE_THRESHOLD=none: no statement is ever prepared on the server (PgBouncer in
transaction mode), on both pools and for the hot statements; the default prepares repeated ones."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.engine import make_url

from summarizer.composition import build_database
from summarizer.settings import Settings, load_settings
from summarizer.storage.postgres.database import PostgresDatabase
from summarizer.storage.sql.statements.driver_statements import DriverStatement
from summarizer.storage.sql.statements.schema import summary_update_queue

DUE = DriverStatement(select(func.count()).where(summary_update_queue.c.state == "pending"))


@pytest.fixture
def database(postgres_url: str, request: pytest.FixtureRequest) -> Iterator[PostgresDatabase]:
    db = PostgresDatabase(make_url(postgres_url), pool_size=1, prepare_threshold=request.param)
    yield db
    db.dispose()


def prepared_on_every_pool(db: PostgresDatabase) -> tuple[int, int]:
    """Run a transaction and a hot statement ten times each, then count what each pool's session prepared."""
    for _ in range(10):
        with db.read() as conn:
            conn.execute(select(func.count()).select_from(summary_update_queue))
        db.run_hot(DUE, {})
    prepared = "SELECT count(*) FROM pg_prepared_statements"
    with db.read() as conn:
        in_transactions = conn.execute(text(prepared)).scalar_one()
    with db.autocommit(write=False) as conn:
        in_autocommit = conn.execute(text(prepared)).scalar_one()
    return in_transactions, in_autocommit


@pytest.mark.parametrize("database", [None], indirect=True)
def test_with_no_threshold_nothing_is_ever_prepared(database: PostgresDatabase) -> None:
    assert prepared_on_every_pool(database) == (0, 0)


@pytest.mark.parametrize("database", [2], indirect=True)
def test_with_a_threshold_repeated_statements_are_prepared(database: PostgresDatabase) -> None:
    in_transactions, in_autocommit = prepared_on_every_pool(database)
    assert in_transactions > 0
    assert in_autocommit > 0


@pytest.mark.parametrize("value", ["none", "None", "never", "off"])
def test_the_setting_reads_none(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUMMARIZER_DATABASE_PREPARE_THRESHOLD", value)
    assert load_settings().database_prepare_threshold is None


def test_the_composition_root_passes_the_setting_on(postgres_url: str) -> None:
    db = build_database(Settings(database_url=postgres_url, database_prepare_threshold=None))
    assert isinstance(db, PostgresDatabase)
    try:
        assert prepared_on_every_pool(db) == (0, 0)
        assert db.run_hot(DriverStatement(select(func.now())), {})[0][0] <= datetime.now(UTC)
    finally:
        db.dispose()
