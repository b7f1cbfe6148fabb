"""Embedded mode under failure: no servers (SQLite + filesystem broker), `summarizer worker` processes with
their own beat. A worker killed mid-call is rescued by the next one; LLM faults retry, park with one alert,
and recover after `summarizer requeue`; every evicted exchange is folded exactly once throughout."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from summarizer.composition import build_database
from summarizer.settings import load_settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.migrations import ensure_schema
from summarizer.storage.sql.writers import alerts
from tests.support.fleet import Fleet, fleet_env, wait_for
from tests.support.rows import queue_row
from tests.support.workload import assert_folded_exactly_once, facts, feed, make_store

pytestmark = pytest.mark.slow


def embedded_env(tmp_path: Path, **overrides: str) -> dict[str, str]:
    return fleet_env(tmp_path, **overrides)  # no URLs: SQLite and the filesystem broker


@pytest.fixture
def embedded_db(tmp_path: Path) -> Iterator[Database]:
    settings = load_settings(database_url="", broker_url="", data_dir=tmp_path / "data")
    db = build_database(settings)
    ensure_schema(db, auto_upgrade=True)
    yield db
    db.dispose()


def settled(db: Database, agent_id: str) -> bool:
    f = facts(db, agent_id)
    return f.folded == f.evicted and f.queue_state == "idle"


def test_embedded_worker_killed_mid_call_is_rescued(embedded_db: Database, tmp_path: Path) -> None:
    fleet = Fleet(embedded_env(tmp_path, fake_llm_latency="3", lease_seconds="4"), tmp_path)
    try:
        fleet.cli("victim", "worker", "-c", "1")
        feed(make_store(embedded_db), "a", 8)

        def running() -> bool:
            with embedded_db.read() as conn:
                row = queue_row(conn, "a")
            return row is not None and row.state == "running"

        wait_for(running, 60, "the victim to claim the row")
        fleet.kill("victim", signal.SIGKILL)  # worker and its beat, in the middle of a 3 s LLM call
        assert facts(embedded_db, "a").version == 0
        fleet.cli("rescuer", "worker", "-c", "1")
        wait_for(lambda: settled(embedded_db, "a"), 90, "the rescuer to finish")
        assert_folded_exactly_once(embedded_db, "a")
    finally:
        fleet.close()


def test_embedded_faults_park_alert_once_and_recover_after_requeue(
    embedded_db: Database, tmp_path: Path
) -> None:
    env = embedded_env(tmp_path, max_retries="2", fake_llm_faults="1:transient,2:transient,3:transient")
    fleet = Fleet(env, tmp_path)
    try:
        fleet.cli("w1", "worker", "-c", "1")
        feed(make_store(embedded_db), "sick", 6)
        wait_for(lambda: facts(embedded_db, "sick").queue_state == "failed", 90, "the agent to be parked")
        with embedded_db.read() as conn:
            assert len(alerts.list_alerts(conn, agent_id="sick", open_only=True)) == 1
        assert facts(embedded_db, "sick").version == 0
        assert fleet.cli("requeue", "requeue", "sick").wait(60) == 0
        wait_for(lambda: settled(embedded_db, "sick"), 90, "recovery after requeue")
        with embedded_db.read() as conn:
            assert alerts.list_alerts(conn, agent_id="sick", open_only=True) == []
            assert len(alerts.list_alerts(conn, agent_id="sick")) == 1
        assert_folded_exactly_once(embedded_db, "sick")
    finally:
        fleet.close()
