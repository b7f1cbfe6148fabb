"""Shared fixtures: databases on both backends (migrated once per session), settings, Redis."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis.configuration import set_hypothesis_home_dir
from sqlalchemy import text

from summarizer.domain import secrets
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from tests.support.corpora import require_corpora
from tests.support.fleet import RedisServer
from tests.support.marks import AMBIENT_PREFIXES, add_service_marks, require_mark, set_running
from tests.support.services import (
    TRUNCATE_ORDER,
    copy_sqlite_template,
    fresh_postgres_database,
    migrate,
    redis_url,
    service_missing,
)

# Tests never write into the repository: Hypothesis keeps its examples and caches outside it.
set_hypothesis_home_dir(str(Path(tempfile.gettempdir()) / "summarizer-hypothesis"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        add_service_marks(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """Remember the running test, so helpers can check it carries the marks of what it does."""
    set_running(item)
    yield
    set_running(None)


@pytest.fixture(autouse=True)
def _hermetic_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's own settings or API keys (the test services' URLs were read at import)."""
    for name in list(os.environ):
        if name.startswith(AMBIENT_PREFIXES):
            monkeypatch.delenv(name)


@pytest.fixture(autouse=True)
def _no_secrets_left_registered() -> Iterator[None]:
    """A test's configured secrets are masked while it runs, never in the next test of the same process."""
    yield
    secrets.forget_all()


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
    db = connect_database(postgres_url)
    yield db
    db.dispose()


def _empty_postgres(db: Database) -> None:
    with db.write() as conn:
        conn.execute(text("TRUNCATE " + ", ".join(TRUNCATE_ORDER) + " RESTART IDENTITY CASCADE"))


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path) -> Iterator[Database]:
    """An empty, migrated database; every test using it runs once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        database = connect_database(copy_sqlite_template(sqlite_template, tmp_path / "test.db"))
        yield database
        database.dispose()
        return
    database = request.getfixturevalue("postgres_db")
    _empty_postgres(database)
    yield database


@pytest.fixture
def empty_postgres_url(postgres_db: Database, postgres_url: str) -> str:
    """The session's PostgreSQL database, emptied, for tests that hand its URL to other processes: what an
    earlier test left (queue rows, agents) is not theirs to drain or read."""
    _empty_postgres(postgres_db)
    return postgres_url


@pytest.fixture
def pg(postgres_db: Database) -> Database:
    """An empty PostgreSQL database, for tests that only make sense there."""
    _empty_postgres(postgres_db)
    return postgres_db


@pytest.fixture(scope="session")
def redis_server_url() -> str:
    import redis

    require_mark("redis", "uses the Redis server")
    url = redis_url()
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2)
        client.ping()
        client.close()
    except Exception as exc:
        service_missing(f"Redis at {url}", exc)
    return url


@pytest.fixture
def redis_server(tmp_path: Path, redis_server_url: str) -> Iterator[RedisServer]:
    """A private redis-server process for the test (a broker a test may restart or kill)."""
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def corpora() -> Path:
    """The real public agent logs (../shared/corpora): the test is skipped without them, fails under CI."""
    return require_corpora()
