"""Embedded mode's beat lives and dies with its worker: `summarizer worker` processes (SQLite + filesystem
broker) killed with SIGKILL, their beat killed, and a standalone beat holding the lock first."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from summarizer.composition import build_database
from summarizer.settings import load_settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.migrations import ensure_schema
from summarizer.storage.sqlite.beat_guard import lock_holder
from tests.support.fleet import Fleet, fleet_env, wait_for
from tests.support.processes import alive, children_of, parent_of
from tests.support.workload import facts, feed, make_store

pytestmark = pytest.mark.slow


def beat_children(pid: int) -> list[int]:
    """The worker's children that run a beat (its other child is the maintenance consumer)."""
    found = []
    for child in children_of(pid):
        try:
            argv = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"beat" in argv:
            found.append(child)
    return found


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    settings = load_settings(database_url="", broker_url="", data_dir=tmp_path / "data")
    database = build_database(settings)
    ensure_schema(database, auto_upgrade=True)
    yield database
    database.dispose()


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    f = Fleet(fleet_env(tmp_path), tmp_path)
    try:
        yield f
    finally:
        f.close()


def beat_of(tmp_path: Path, worker_pid: int) -> int | None:
    """The pid of the live beat holding the lock as `worker_pid`'s child, if there is one."""
    pid = lock_holder(tmp_path / "data" / "beat.lock")
    return pid if pid is not None and alive(pid) and parent_of(pid) == worker_pid else None


def scheduled_again(db: Database, agent_id: str) -> None:
    """An agent whose evictions no wake-up announces is summarized: only a beat's dispatcher finds it."""
    feed(make_store(db), agent_id, 9)
    wait_for(lambda: facts(db, agent_id).folded >= 6, 90, f"the dispatcher to find {agent_id}")


def test_a_killed_worker_takes_its_beat_along_and_the_next_worker_schedules(
    fleet: Fleet, db: Database, tmp_path: Path
) -> None:
    first = fleet.cli("w1", "worker", "-c", "1")
    wait_for(lambda: beat_of(tmp_path, first.pid), 60, "w1's beat to take the lock")
    beat = beat_of(tmp_path, first.pid)
    assert beat is not None
    fleet.kill_process("w1")  # the worker alone, not its process group
    wait_for(lambda: not alive(beat), 5, "the beat to die with its worker")
    second = fleet.cli("w2", "worker", "-c", "1")
    wait_for(lambda: beat_of(tmp_path, second.pid), 60, "w2's beat to take the lock")
    scheduled_again(db, "after-restart")


def test_a_worker_restarts_its_beat_and_never_runs_two(fleet: Fleet, db: Database, tmp_path: Path) -> None:
    worker = fleet.cli("w1", "worker", "-c", "1")
    wait_for(lambda: beat_of(tmp_path, worker.pid), 60, "the beat to take the lock")
    first = beat_of(tmp_path, worker.pid)
    assert first is not None
    os.kill(first, signal.SIGKILL)
    most: list[int] = []

    def replaced() -> bool:
        most.append(len([pid for pid in beat_children(worker.pid) if pid != first]))
        return beat_of(tmp_path, worker.pid) not in (None, first)

    wait_for(replaced, 60, "a new beat")
    assert max(most) <= 1, most
    scheduled_again(db, "after-beat-restart")
    assert beat_of(tmp_path, worker.pid) is not None


def test_a_worker_beat_stands_by_while_another_beat_runs_and_takes_over(
    fleet: Fleet, db: Database, tmp_path: Path
) -> None:
    standalone = fleet.cli("beat", "beat")
    wait_for(lambda: lock_holder(tmp_path / "data" / "beat.lock") == standalone.pid, 60, "the beat's lock")
    worker = fleet.cli("w1", "worker", "-c", "1")
    wait_for(lambda: "beat.standby" in fleet.log("w1"), 60, "the worker's beat to be refused")
    assert beat_of(tmp_path, worker.pid) is None
    fleet.kill_process("beat")
    wait_for(lambda: beat_of(tmp_path, worker.pid), 60, "the worker's beat to take over")
    scheduled_again(db, "after-takeover")
