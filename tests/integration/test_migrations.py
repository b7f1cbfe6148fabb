"""Migrations applied == the declared schema, and downgrade/upgrade round trips, on both databases."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from summarizer.storage import migrations
from summarizer.storage.database import Database, connect_database
from summarizer.storage.schema import metadata
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
        context = MigrationContext.configure(conn, opts={"compare_type": True})
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
