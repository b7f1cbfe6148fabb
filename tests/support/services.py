"""Where the test services are, and what happens when one is missing.

Locally a missing PostgreSQL or Redis skips the tests that need it, with a loud notice; in CI
(``CI=true``) it fails them, so a broken service can never pass as green.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import metadata
from tests.support.marks import require_mark

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def service_missing(what: str, error: BaseException) -> None:
    message = f"{what} is not reachable ({type(error).__name__}: {error})"
    if in_ci():
        pytest.fail(f"CI needs {message}", pytrace=False)
    banner = "!" * 20
    print(f"\n{banner} SKIPPING: {message} {banner}")
    pytest.skip(f"SERVICE MISSING: {message}")


# Read once at import: the suite clears SUMMARIZER_* from every test's environment.
_TEST_DATABASE_URL = os.environ.get("SUMMARIZER_TEST_DATABASE_URL", DEFAULT_PG)
_TEST_REDIS_URL = os.environ.get("SUMMARIZER_TEST_REDIS_URL", DEFAULT_REDIS)


def pg_admin_url() -> str:
    url = _TEST_DATABASE_URL
    return (
        url.replace("postgresql://", "postgresql+psycopg://", 1) if url.startswith("postgresql://") else url
    )


def redis_url() -> str:
    """The test Redis; under pytest-xdist each worker gets a database of its own (gw0 the configured one,
    gw1 the next, ...), so parallel tests never see each other's queues or keys."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return _TEST_REDIS_URL
    parts = urlsplit(_TEST_REDIS_URL)
    base = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(base + int(worker[2:])) % 16}"))


def alembic_config(url: str) -> Config:
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def migrate(url: str) -> None:
    command.upgrade(alembic_config(url), "head")


def fresh_postgres_database(prefix: str = "summarizer_test") -> Iterator[str]:
    """Create a uniquely named database on the test server, yield its URL, drop it afterwards."""
    require_mark("postgres", "uses the PostgreSQL server")
    admin_url = pg_admin_url()
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        admin.dispose()
        service_missing(f"PostgreSQL at {make_url(admin_url).render_as_string(hide_password=True)}", exc)
    url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def empty_database(kind: str, tmp_path: Path, prefix: str) -> Iterator[Database]:
    """A database with no tables yet: a SQLite file under tmp_path ("sqlite"), or a new database on the
    PostgreSQL test server ("postgresql"), dropped afterwards."""
    if kind == "sqlite":
        database = connect_database(f"sqlite:///{(tmp_path / f'{prefix}.db').as_posix()}")
        yield database
        database.dispose()
        return
    for url in fresh_postgres_database(prefix):
        database = connect_database(url)
        yield database
        database.dispose()


def copy_sqlite_template(template: Path, target: Path) -> str:
    shutil.copyfile(template, target)
    return f"sqlite:///{target.as_posix()}"


TRUNCATE_ORDER = [t.name for t in reversed(metadata.sorted_tables)]
