"""Shared fixtures: databases on both backends (migrated once per session), settings, Redis."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from summarizer.storage.database import Database
from tests.support.services import (
    TRUNCATE_ORDER,
    copy_sqlite_template,
    fresh_postgres_database,
    migrate,
    redis_url,
    service_missing,
)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    migrate(f"sqlite:///{path.as_posix()}")
    return path


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A migrated PostgreSQL database of our own for the whole session."""
    for url in fresh_postgres_database():
        migrate(url)
        yield url


@pytest.fixture(scope="session")
def postgres_db(postgres_url: str) -> Iterator[Database]:
    db = Database(postgres_url)
    yield db
    db.dispose()


def _empty_postgres(db: Database) -> None:
    with db.write() as conn:
        conn.execute(text("TRUNCATE " + ", ".join(TRUNCATE_ORDER) + " RESTART IDENTITY CASCADE"))


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path) -> Iterator[Database]:
    """An empty, migrated database; every test using it runs once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        database = Database(copy_sqlite_template(sqlite_template, tmp_path / "test.db"))
        yield database
        database.dispose()
        return
    database = request.getfixturevalue("postgres_db")
    _empty_postgres(database)
    yield database


@pytest.fixture
def pg(postgres_db: Database) -> Database:
    """An empty PostgreSQL database, for tests that only make sense there."""
    _empty_postgres(postgres_db)
    return postgres_db


@pytest.fixture(scope="session")
def redis_server_url() -> str:
    import redis

    url = redis_url()
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2)
        client.ping()
        client.close()
    except Exception as exc:
        service_missing(f"Redis at {url}", exc)
    return url
