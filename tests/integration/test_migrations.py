"""Migrations applied == the declared schema, and downgrade/upgrade round trips, on both databases."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.service.recall import Recall
from summarizer.storage.backends import connect_database
from summarizer.storage.sql import migrations
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.recall import SqlRecallStore
from summarizer.storage.sql.statements.schema import compared, metadata
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig
from tests.support.services import empty_database


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    yield from empty_database(request.param, tmp_path, "summarizer_migrations")


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


def test_history_recorded_before_the_search_index_is_found_after_the_upgrade(empty_db: Database) -> None:
    migrations.upgrade(empty_db, "0008")
    now = datetime(2026, 11, 1, tzinfo=UTC)
    with empty_db.write() as conn:
        conn.execute(
            text(
                "INSERT INTO agents (id, created_at, preamble_tokens, window_tokens, next_message_seq,"
                " last_exchange, window_start, current_complete, current_tool_calls, unsummarized)"
                " VALUES ('old', :now, 0, 10, 3, 1, 1, true, '[]', 0)"
            ),
            {"now": now},
        )
        conn.execute(
            text(
                "INSERT INTO exchanges (agent_id, id, first_seq, last_seq, message_count, tokens, title,"
                " started_at, ended_at, completed) VALUES ('old', 1, 1, 2, 2, 10, 'old talk', :now, :now, true)"
            ),
            {"now": now},
        )
        for seq, kind, content in ((1, "user", "Which grace window?"), (2, "assistant", "Thirty seconds.")):
            conn.execute(
                text(
                    "INSERT INTO messages (agent_id, seq, exchange_id, kind, content, continues_exchange,"
                    " tokens, created_at, in_window) VALUES ('old', :seq, 1, :kind, :content, false, 5, :now, true)"
                ),
                {"seq": seq, "kind": kind, "content": content, "now": now},
            )
    migrations.upgrade(empty_db)
    page = Recall(SqlRecallStore(empty_db)).search("old", "grace windows")
    assert [(h.exchange_id, h.state) for h in page.hits] == [(1, "in_window")]
    assert page.hits[0].snippets[0].text == "Which grace window?"
    migrations.downgrade(empty_db, "0008")
    migrations.upgrade(empty_db)
    assert Recall(SqlRecallStore(empty_db)).search("old", "thirty").hits[0].exchange_id == 1


def test_downgrading_0011_restores_each_messages_window_flag_and_eviction_time(empty_db: Database) -> None:
    migrations.upgrade(empty_db)
    store = ConversationStore(empty_db, StoreConfig(window_tokens=50, batch_size=100))
    t0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    store.record(
        "a",
        [NewMessage(Kind.SYSTEM, "be brief", tokens=5, created_at=t0)]
        + [
            NewMessage(kind, f"{kind.value} {i}", tokens=10, created_at=t0 + timedelta(minutes=i))
            for i in range(1, 7)
            for kind in (Kind.USER, Kind.ASSISTANT)
        ],
    )
    migrations.downgrade(empty_db, "0010")
    with empty_db.read() as conn:
        window_start = conn.execute(text("SELECT window_start FROM agents WHERE id = 'a'")).scalar_one()
        evicted: dict[int, object] = {
            number: at
            for number, at in conn.execute(
                text("SELECT id, evicted_at FROM exchanges WHERE evicted_at IS NOT NULL")
            ).all()
        }
        rows = conn.execute(
            text("SELECT exchange_id, in_window, evicted_at FROM messages ORDER BY seq")
        ).all()
    assert window_start > 1
    assert set(evicted) == set(range(1, window_start))
    for exchange_id, in_window, evicted_at in rows:
        gone = exchange_id is not None and exchange_id < window_start
        assert bool(in_window) is not gone
        assert (evicted_at is not None) is gone
        if gone:
            assert str(evicted_at) == str(evicted[exchange_id])
    migrations.upgrade(empty_db)
    assert schema_differences(empty_db) == []


def test_0013_turns_stored_json_nulls_into_sql_null_and_null_no_longer_finds_them(empty_db: Database) -> None:
    store = ConversationStore(empty_db, StoreConfig(window_tokens=0, batch_size=100))
    migrations.upgrade(empty_db)
    t0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    store.record("a", [NewMessage(Kind.USER, "which grace window?", created_at=t0)])
    migrations.downgrade(empty_db, "0012")
    json_null = "'null'::jsonb" if empty_db.engine.dialect.name == "postgresql" else "'null'"
    with empty_db.write() as conn:  # what single-row inserts stored before 0013
        conn.execute(text(f"UPDATE messages SET input = {json_null}"))
        if empty_db.engine.dialect.name == "sqlite":
            conn.execute(text("UPDATE message_search SET document = document || '  null'"))
    migrations.upgrade(empty_db)
    with empty_db.read() as conn:
        assert conn.execute(text("SELECT count(*) FROM messages WHERE input IS NOT NULL")).scalar_one() == 0
    recall = Recall(SqlRecallStore(empty_db))
    assert recall.search("a", "null").hits == ()
    assert [h.exchange_id for h in recall.search("a", "grace").hits] == [1]
