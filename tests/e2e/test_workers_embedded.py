"""Embedded mode end to end: no servers at all (SQLite + filesystem broker), one `summarizer worker`
process with its beat; the host wakes it after each eviction and the dispatcher covers lost wake-ups."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from summarizer.broker.wakeup import CeleryWakeup
from summarizer.composition import build_database
from summarizer.settings import load_settings
from summarizer.storage.sql.migrations import ensure_schema
from summarizer.storage.sqlite.beat_guard import lock_holder
from tests.support.beat_lock import lock_file
from tests.support.fleet import Fleet, fleet_env, wait_for
from tests.support.workload import assert_folded_exactly_once, facts, feed, make_store

pytestmark = pytest.mark.slow


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    f = Fleet(fleet_env(tmp_path), tmp_path)  # no URLs: SQLite and the filesystem broker
    try:
        yield f
    finally:
        f.close()


def test_embedded_worker_summarizes_with_no_servers(fleet: Fleet, tmp_path: Path) -> None:
    settings = load_settings(database_url="", broker_url="", data_dir=tmp_path / "data")
    db = build_database(settings)
    ensure_schema(db, auto_upgrade=True)
    fleet.cli("worker", "worker", "-c", "2")
    store = make_store(db)
    wakeup = CeleryWakeup(settings)
    agents = ["e1", "e2", "e3"]
    for agent_id in agents:
        feed(store, agent_id, 9, on_queued=wakeup)
    feed(store, "no-wakeup", 9)  # only the dispatcher can find this one
    wakeup.close()
    everyone = [*agents, "no-wakeup"]
    # 7 evictions each; a batch takes what has piled up, and a remainder under BATCH_SIZE may wait.
    wait_for(lambda: all(facts(db, a).folded >= 6 for a in everyone), 60, "summaries")
    for agent_id in everyone:
        assert assert_folded_exactly_once(db, agent_id, complete=False).unsummarized <= 1
    # The worker's beat (a child interpreter) may still be starting on a busy host: let it take the guard.
    wait_for(lambda: lock_holder(lock_file(settings)) is not None, 60, "the worker's beat to take the guard")
    second_beat = fleet.cli("beat2", "beat")
    assert second_beat.wait(30) == 3  # the embedded worker's beat holds the guard
    db.dispose()


def test_an_explicit_sqlite_url_runs_a_worker_and_its_beat(tmp_path: Path) -> None:
    """`SUMMARIZER_DATABASE_URL=sqlite:////path/s.db`: the beat takes the file lock beside that file (not
    PostgreSQL's advisory lock), so its dispatcher finds an agent no wake-up announced."""
    database = tmp_path / "deploy" / "s.db"
    database.parent.mkdir()
    url = f"sqlite:///{database.as_posix()}"
    fleet = Fleet(fleet_env(tmp_path, database_url=url), tmp_path)
    try:
        settings = load_settings(database_url=url, broker_url="", data_dir=tmp_path / "data")
        db = build_database(settings)
        ensure_schema(db, auto_upgrade=True)
        fleet.cli("worker", "worker", "-c", "1")
        feed(make_store(db), "only-the-beat-finds-me", 9)
        wait_for(lambda: facts(db, "only-the-beat-finds-me").folded >= 6, 90, "the dispatcher's summary")
        assert lock_file(settings) == database.with_name("s.db.beat.lock")
        assert lock_holder(lock_file(settings)) is not None
        assert fleet.cli("beat2", "beat").wait(30) == 3  # refused: the worker's beat holds the guard
        db.dispose()
    finally:
        fleet.close()
