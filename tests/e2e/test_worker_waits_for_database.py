"""A worker started before its database waits with backoff (logging the outage once) instead of exiting,
and starts folding as soon as the database appears."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from summarizer.storage.backends import connect_database
from tests.support.fleet import Fleet, fleet_env, wait_for
from tests.support.tcp_proxy import TcpProxy
from tests.support.workload import facts, feed, make_store

pytestmark = pytest.mark.slow


def test_a_worker_waits_for_its_database_and_then_works(postgres_url: str, tmp_path: Path) -> None:
    real = make_url(postgres_url)
    proxy = TcpProxy((real.host or "127.0.0.1", real.port or 5432))
    via_proxy = real.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    fleet = Fleet(fleet_env(tmp_path, database_url=via_proxy), tmp_path)
    db = connect_database(postgres_url)
    try:
        worker = fleet.cli("worker", "worker", "-c", "1")
        wait_for(lambda: "database.unreachable" in fleet.log("worker"), 60, "the outage to be logged")
        assert worker.poll() is None  # still there, waiting
        proxy.open()
        wait_for(lambda: "database.reachable_again" in fleet.log("worker"), 60, "the database to be found")
        feed(make_store(db), "after-the-outage", 9)
        wait_for(lambda: facts(db, "after-the-outage").folded >= 6, 90, "the worker's summary")
        assert fleet.log("worker").count("database.unreachable") == 1  # once per state change
        assert "Traceback" not in fleet.log("worker").split("database.reachable_again")[0]
    finally:
        fleet.close()
        db.dispose()
        proxy.close()


def test_a_beat_waits_for_its_database_and_then_takes_the_guard(postgres_url: str, tmp_path: Path) -> None:
    real = make_url(postgres_url)
    proxy = TcpProxy((real.host or "127.0.0.1", real.port or 5432))
    via_proxy = real.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    fleet = Fleet(fleet_env(tmp_path, database_url=via_proxy), tmp_path)
    try:
        beat = fleet.cli("beat", "beat")
        wait_for(lambda: "beat.database_unreachable" in fleet.log("beat"), 60, "the outage to be logged")
        assert beat.poll() is None
        proxy.open()
        wait_for(lambda: "beat.guard_taken" in fleet.log("beat"), 60, "the guard once the database is back")
        assert fleet.log("beat").count("beat.database_unreachable") == 1
    finally:
        fleet.close()
        proxy.close()
