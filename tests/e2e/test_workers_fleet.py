"""End to end: real PostgreSQL, a private Redis, Celery workers and beat as subprocesses (not eager mode).

Each test ends with the exactly-once check: every evicted exchange folded by exactly one successful run.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select, text

from summarizer.broker.wakeup import CeleryWakeup
from summarizer.settings import load_settings
from summarizer.storage.postgres.beat_guard import ADVISORY_LOCK_KEY
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import summary_runs, summary_update_queue
from summarizer.storage.sql.writers import alerts
from tests.support.fleet import Fleet, RedisServer, fleet_env, wait_for
from tests.support.rows import queue_row
from tests.support.workload import assert_folded_exactly_once, facts, feed, make_store

# Advisory locks are server-wide: only the ones taken in this test's own database are ours.
THIS_DATABASE = "database = (SELECT oid FROM pg_database WHERE datname = current_database())"

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.redis]


def distributed_env(
    postgres_url: str, redis: RedisServer, tmp_path: Path, **overrides: str
) -> dict[str, str]:
    return fleet_env(tmp_path, database_url=postgres_url, broker_url=redis.url, batch_size="3", **overrides)


@pytest.fixture
def make_fleet(tmp_path: Path) -> Iterator[list[Fleet]]:
    fleets: list[Fleet] = []
    try:
        yield fleets
    finally:
        for f in fleets:
            f.close()


def start_fleet(fleets: list[Fleet], env: dict[str, str], tmp_path: Path) -> Fleet:
    fleet = Fleet(env, tmp_path)
    fleets.append(fleet)
    return fleet


def all_folded(db: Database, agent_ids: list[str]) -> bool:
    return all(
        facts(db, a).folded == facts(db, a).evicted and facts(db, a).queue_state == "idle" for a in agent_ids
    )


def test_many_agents_two_workers_and_duplicate_messages(
    pg: Database, postgres_url: str, redis_server: RedisServer, tmp_path: Path, make_fleet: list[Fleet]
) -> None:
    env = distributed_env(postgres_url, redis_server, tmp_path)
    fleet = start_fleet(make_fleet, env, tmp_path)
    fleet.worker("w1")
    fleet.worker("w2")
    fleet.beat()
    wakeup = CeleryWakeup(load_settings(broker_url=redis_server.url, data_dir=tmp_path / "data"))
    store = make_store(pg)
    agents = [f"agent-{n}" for n in range(12)]

    def wake_twice(
        ids: object,
    ) -> None:  # every wake-up duplicated, and one agent woken on both workers at once
        wakeup(list(ids))  # type: ignore[call-overload]
        wakeup(list(ids))  # type: ignore[call-overload]

    for round_start in (1, 11):
        for agent_id in agents:
            feed(store, agent_id, 10, start=round_start, on_queued=wake_twice)
    wakeup.close()
    wait_for(lambda: all_folded(pg, agents), 90, "every agent summarized")
    for agent_id in agents:
        assert assert_folded_exactly_once(pg, agent_id).evicted == 18


def most_runs_at_once(db: Database) -> int:
    """The largest number of successful runs that were in flight at the same moment."""
    with db.read() as conn:
        spans = conn.execute(
            select(summary_runs.c.started_at, summary_runs.c.finished_at).where(
                summary_runs.c.outcome == "ok"
            )
        ).all()
    events = sorted([(s.started_at, 1) for s in spans] + [(s.finished_at, -1) for s in spans])
    most = current = 0
    for _, step in events:  # at equal times the end (-1) sorts first: touching runs do not overlap
        current += step
        most = max(most, current)
    return most


def test_one_gevent_worker_holds_many_llm_calls_at_once(
    pg: Database, postgres_url: str, redis_server: RedisServer, tmp_path: Path, make_fleet: list[Fleet]
) -> None:
    env = distributed_env(postgres_url, redis_server, tmp_path, fake_llm_latency="2")
    fleet = start_fleet(make_fleet, env, tmp_path)
    fleet.cli("green", "worker", "--pool", "gevent", "--concurrency", "24", "--no-beat")  # one process
    wait_for(lambda: "ready" in fleet.log("green"), 60, "the gevent worker")
    wakeup = CeleryWakeup(load_settings(broker_url=redis_server.url, data_dir=tmp_path / "data"))
    store = make_store(pg)
    agents = [f"g-{n}" for n in range(16)]
    for agent_id in agents:
        feed(store, agent_id, 5, on_queued=wakeup)  # 3 evictions each: one batch, one 2 s LLM call
    wakeup.close()
    wait_for(lambda: all_folded(pg, agents), 90, "every agent summarized")
    assert "concurrency: 24 (gevent)" in fleet.log("green")
    assert "MonkeyPatchWarning" not in fleet.log("green")
    assert most_runs_at_once(pg) >= 12  # the 2 s calls overlapped in the one process
    for agent_id in agents:
        assert assert_folded_exactly_once(pg, agent_id).evicted == 3


def test_sigkilled_worker_mid_call_is_rescued_by_another(
    pg: Database, postgres_url: str, redis_server: RedisServer, tmp_path: Path, make_fleet: list[Fleet]
) -> None:
    env = distributed_env(postgres_url, redis_server, tmp_path, fake_llm_latency="3", lease_seconds="4")
    fleet = start_fleet(make_fleet, env, tmp_path)
    fleet.worker("victim", concurrency=1)
    fleet.beat()
    feed(make_store(pg), "a", 8)

    def running() -> bool:
        with pg.read() as conn:
            row = queue_row(conn, "a")
        return row is not None and row.state == "running"

    wait_for(running, 30, "the victim to claim the row")
    fleet.kill("victim", signal.SIGKILL)  # in the middle of its 3 s LLM call
    assert facts(pg, "a").version == 0
    fleet.worker("rescuer", concurrency=1)
    wait_for(lambda: all_folded(pg, ["a"]), 60, "the rescuer to finish")
    assert_folded_exactly_once(pg, "a")


def test_redis_restarted_mid_run(
    pg: Database, postgres_url: str, redis_server: RedisServer, tmp_path: Path, make_fleet: list[Fleet]
) -> None:
    env = distributed_env(postgres_url, redis_server, tmp_path, fake_llm_latency="0.2")
    fleet = start_fleet(make_fleet, env, tmp_path)
    fleet.worker("w1")
    fleet.beat()
    store = make_store(pg)
    agents = [f"r-{n}" for n in range(6)]
    for agent_id in agents:
        feed(store, agent_id, 8)
    wait_for(lambda: any(facts(pg, a).version > 0 for a in agents), 30, "the first update")
    redis_server.stop()  # messages in flight are lost with it (no persistence)
    for agent_id in agents:
        feed(store, agent_id, 8, start=9)
    redis_server.start()
    wait_for(lambda: all_folded(pg, agents), 90, "work to complete after the restart")
    for agent_id in agents:
        assert_folded_exactly_once(pg, agent_id)


def test_llm_faults_retry_park_alert_requeue_recover(
    pg: Database, postgres_url: str, redis_server: RedisServer, tmp_path: Path, make_fleet: list[Fleet]
) -> None:
    env = distributed_env(
        postgres_url,
        redis_server,
        tmp_path,
        max_retries="2",
        fake_llm_faults="1:transient,2:transient,3:transient",
    )
    fleet = start_fleet(make_fleet, env, tmp_path)
    fleet.worker("w1", concurrency=1)
    fleet.beat()
    feed(make_store(pg), "sick", 6)

    def state() -> str | None:
        with pg.read() as conn:
            return conn.execute(
                select(summary_update_queue.c.state).where(summary_update_queue.c.agent_id == "sick")
            ).scalar()

    wait_for(lambda: state() == "failed", 60, "the agent to be parked")
    with pg.read() as conn:
        open_alerts = alerts.list_alerts(conn, agent_id="sick", open_only=True)
    assert len(open_alerts) == 1
    assert facts(pg, "sick").version == 0
    assert "critical" in fleet.log("w1")
    requeue = fleet.cli("requeue-cmd", "requeue", "sick")
    assert requeue.wait(30) == 0
    wait_for(lambda: all_folded(pg, ["sick"]), 60, "recovery after requeue")
    with pg.read() as conn:
        assert alerts.list_alerts(conn, agent_id="sick", open_only=True) == []
        assert len(alerts.list_alerts(conn, agent_id="sick")) == 1
    assert_folded_exactly_once(pg, "sick")


def test_a_second_beat_refuses_to_run(
    pg: Database, postgres_url: str, redis_server: RedisServer, tmp_path: Path, make_fleet: list[Fleet]
) -> None:
    fleet = start_fleet(make_fleet, distributed_env(postgres_url, redis_server, tmp_path), tmp_path)
    fleet.beat("beat1")
    wait_for(lambda: "beat.guard_taken" in fleet.log("beat1"), 30, "the first beat's guard")
    second = fleet.beat("beat2")
    assert second.wait(30) == 3
    assert "beat.refused" in fleet.log("beat2")


def test_a_beat_that_lost_its_session_never_runs_beside_a_second_one(
    pg: Database, postgres_url: str, redis_server: RedisServer, tmp_path: Path, make_fleet: list[Fleet]
) -> None:
    """The first beat's lock session is killed and a second beat starts at once: whichever takes the lock
    first stays, the other exits with status 3 (the first at its next guard check)."""
    fleet = start_fleet(make_fleet, distributed_env(postgres_url, redis_server, tmp_path), tmp_path)
    first = fleet.beat("beat1")
    wait_for(lambda: "beat.guard_taken" in fleet.log("beat1"), 30, "the first beat's guard")
    holder = text(
        "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = :key"
        f" AND {THIS_DATABASE}"
    )
    with pg.write() as conn:
        assert conn.execute(holder, {"key": ADVISORY_LOCK_KEY}).scalar_one()
    second = fleet.beat("beat2")
    wait_for(lambda: 3 in (first.poll(), second.poll()), 60, "one of the two beats to stand down")
    survivor, quitter = ("beat2", "beat1") if first.poll() == 3 else ("beat1", "beat2")
    assert "beat.guard_lost" in fleet.log(quitter) or "beat.refused" in fleet.log(quitter)
    assert fleet.procs[survivor].poll() is None
    with pg.read() as conn:  # and the survivor holds the lock
        held = text(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = :key AND granted"
            f" AND {THIS_DATABASE}"
        )
        assert conn.execute(held, {"key": ADVISORY_LOCK_KEY}).scalar_one() == 1
