"""Periodic work runs on schedule behind a backlog: real worker and beat, PostgreSQL, Redis, a slow fake LLM.

One worker with one update slot and a fake LLM that takes a second per call, and hundreds of agents due
at once: the updates take minutes, and meanwhile dispatch, lease rescue and alert evaluation must keep
running at their intervals (seen in the worker's task log) and `queue_depth_high` must be raised while
the backlog lasts. With the periodic messages in the update queue they waited behind the backlog and
expired unrun.
"""

from __future__ import annotations

import json
from datetime import datetime
from itertools import pairwise
from pathlib import Path

import pytest
from sqlalchemy import func, select

from summarizer.broker.celery_config import TASK_ALERTS, TASK_DISPATCH, TASK_RESCUE
from summarizer.domain.alert_rules import QUEUE_DEPTH_HIGH
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import summary_update_queue
from summarizer.storage.sql.writers import alerts
from tests.support.fleet import Fleet, RedisServer, fleet_env, wait_for
from tests.support.workload import feed, make_store

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.redis]

AGENTS = 240
DEPTH_LIMIT = 50
OBSERVE_SECONDS = 20.0


def task_runs(log: str, task: str) -> list[datetime]:
    """When `task` finished successfully, from the worker's JSON log (its maintenance child logs there too)."""
    times = []
    for line in log.splitlines():
        if f"Task {task}[" not in line or "succeeded" not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        times.append(datetime.fromisoformat(str(record["timestamp"]).replace("Z", "+00:00")))
    return sorted(times)


def waiting(db: Database) -> int:
    with db.read() as conn:
        return int(
            conn.execute(
                select(func.count()).where(summary_update_queue.c.state.in_(("pending", "running")))
            ).scalar_one()
        )


def depth_alerts(db: Database) -> list[alerts.AlertRecord]:
    with db.read() as conn:
        return [a for a in alerts.list_alerts(conn) if a.kind == QUEUE_DEPTH_HIGH]


def largest_gap(times: list[datetime]) -> float:
    return max((b - a).total_seconds() for a, b in pairwise(times))


def test_dispatch_rescue_and_alerts_run_on_schedule_behind_a_backlog(
    pg: Database, postgres_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    store = make_store(pg)
    for n in range(AGENTS):
        feed(store, f"agent-{n:03d}", 5)  # three exchanges evicted: one full batch due per agent
    assert waiting(pg) == AGENTS
    env = fleet_env(
        tmp_path,
        database_url=postgres_url,
        broker_url=redis_server.url,
        batch_size="3",
        fake_llm_latency="1",
        dispatch_interval="1",
        rescue_interval="1",
        alert_interval="1",
        alert_queue_depth=str(DEPTH_LIMIT),
    )
    fleet = Fleet(env, tmp_path)
    try:
        fleet.worker("w1", concurrency=1)
        fleet.beat()
        wait_for(lambda: task_runs(fleet.log("w1"), TASK_DISPATCH), 60, "the first dispatch")
        first = task_runs(fleet.log("w1"), TASK_DISPATCH)[0]
        wait_for(
            lambda: (
                (task_runs(fleet.log("w1"), TASK_DISPATCH)[-1] - first).total_seconds() >= OBSERVE_SECONDS
            ),
            OBSERVE_SECONDS + 60,
            f"{OBSERVE_SECONDS:.0f} s of dispatch runs",
        )
        still_waiting = waiting(pg)
        log = fleet.log("w1")
    finally:
        fleet.close()
    # The backlog lasted the whole observation: one slot, one second per update.
    assert still_waiting > DEPTH_LIMIT, still_waiting
    raised = depth_alerts(pg)
    assert len(raised) == 1, raised
    assert raised[0].resolved_at is None
    for task in (TASK_DISPATCH, TASK_RESCUE, TASK_ALERTS):
        runs = [t for t in task_runs(log, task) if t >= first]
        assert len(runs) >= OBSERVE_SECONDS / 2, (task, len(runs))  # every second, with slack for a busy host
        assert largest_gap(runs) < 6, (task, largest_gap(runs))
