"""The `store` fixture: every contract test runs on the in-memory fake, SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from summarizer.storage.backends import connect_database
from summarizer.testing.memory_store import InMemoryUpdateStore
from tests.conftest import _empty_postgres
from tests.contract.harness import ContractStore, sql_backend
from tests.support.services import copy_sqlite_template


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path) -> Iterator[ContractStore]:
    if request.param == "memory":
        yield InMemoryUpdateStore()
        return
    if request.param == "sqlite":
        database = connect_database(copy_sqlite_template(sqlite_template, tmp_path / "contract.db"))
        yield sql_backend(database)
        database.dispose()
        return
    database = request.getfixturevalue("postgres_db")
    _empty_postgres(database)
    yield sql_backend(database)
