"""Migrations applied == the declared schema, and downgrade/upgrade round trips, on both databases."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from summarizer.storage.backends import connect_database
from summarizer.storage.sql import migrations
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.schema import compared, metadata
from tests.support.services import fresh_postgres_database


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        database = connect_database(f"sqlite:///{(tmp_path / 'm.db').as_posix()}")
        yield database
        database.dispose()
        return
    for url in fresh_postgres_database("summarizer_migrations"):
        database = connect_database(url)
        yield database
        database.dispose()


def schema_differences(db: Database) -> list[object]:
    with db.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "include_name": compared})
        return list(compare_metadata(context, metadata))


def test_migrations_produce_exactly_the_declared_schema(empty_db: Database) -> None:
    migrations.upgrade(empty_db)
    assert schema_differences(empty_db) == []
    assert migrations.current_revision(empty_db) == migrations.head_revision(empty_db)


def test_downgrade_to_base_then_upgrade_round_trips(empty_db: Database) -> None:
    migrations.upgrade(empty_db)
    migrations.downgrade(empty_db, "base")
    assert set(inspect(empty_db.engine).get_table_names()) <= {"alembic_version"}
    migrations.upgrade(empty_db)
    assert schema_differences(empty_db) == []


def test_embedded_database_is_upgraded_on_first_use_but_shared_one_is_not(tmp_path: Path) -> None:
    database = connect_database(f"sqlite:///{(tmp_path / 'auto.db').as_posix()}")
    with pytest.raises(migrations.SchemaOutOfDate, match="run `summarizer db upgrade`"):
        migrations.ensure_schema(database, auto_upgrade=False)
    migrations.ensure_schema(database, auto_upgrade=True)
    assert migrations.current_revision(database) == migrations.head_revision(database)


def test_schema_head_names_the_newest_migration(tmp_path: Path) -> None:
    database = connect_database(f"sqlite:///{(tmp_path / 'head.db').as_posix()}")
    try:
        assert migrations.head_revision(database) == migrations.SCHEMA_HEAD
    finally:
        database.dispose()


def test_a_current_database_is_checked_without_loading_alembic(tmp_path: Path) -> None:
    url = f"sqlite:///{(tmp_path / 'current.db').as_posix()}"
    database = connect_database(url)
    migrations.upgrade(database)
    database.dispose()
    probe = (
        "import sys\n"
        "from summarizer.storage.backends import connect_database\n"
        "from summarizer.storage.sql.migrations import ensure_schema\n"
        f"ensure_schema(connect_database({url!r}), auto_upgrade=False)\n"
        "print(sorted(m for m in sys.modules if m == 'alembic' or m.startswith('alembic.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_database_behind_is_still_refused_by_alembics_own_check(tmp_path: Path) -> None:
    database = connect_database(f"sqlite:///{(tmp_path / 'behind.db').as_posix()}")
    try:
        migrations.upgrade(database, "0005")
        with pytest.raises(
            migrations.SchemaOutOfDate, match=f"at 0005, this version needs {migrations.SCHEMA_HEAD}"
        ):
            migrations.ensure_schema(database, auto_upgrade=False)
    finally:
        database.dispose()
