"""A provider outage is one incident: real worker and beat processes, PostgreSQL, Redis, the fake LLM.

The fake LLM fails every call with `auth` (HTTP 401) while an outage file exists. Across many agents that
must open ONE fleet-wide breaker and raise ONE alert, park no agent and spend no agent's retries; once the
file is gone a probe closes the breaker, the alert is resolved, and every agent is summarized exactly once.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select

from summarizer.domain.breaker_state import OPEN, PROVIDER_DOWN
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import summary_runs, summary_update_queue
from summarizer.storage.sql.writers import alerts
from summarizer.storage.sql.writers.breakers import load
from tests.support.fleet import Fleet, RedisServer, fleet_env, wait_for
from tests.support.workload import assert_folded_exactly_once, facts, feed, make_store

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.redis]

AGENTS = 30


def provider_alerts(db: Database) -> list[alerts.AlertRecord]:
    with db.read() as conn:
        return [a for a in alerts.list_alerts(conn) if a.kind == PROVIDER_DOWN]


def queue_counts(db: Database) -> dict[str, int]:
    with db.read() as conn:
        rows = conn.execute(
            select(summary_update_queue.c.state, func.count()).group_by(summary_update_queue.c.state)
        ).all()
        most_failures = conn.execute(select(func.max(summary_update_queue.c.consecutive_failures))).scalar()
    return {**{state: int(n) for state, n in rows}, "most_failures": int(most_failures or 0)}


def breaker_probes(db: Database) -> int:
    with db.read() as conn:
        state = load(conn, "fake")
    return state.probes if state is not None and state.state == OPEN else -1


def test_an_auth_outage_is_one_incident_and_recovery_summarizes_everyone(
    pg: Database, postgres_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    outage = tmp_path / "outage"
    outage.write_text("auth")
    store = make_store(pg)
    agents = [f"agent-{n:02d}" for n in range(AGENTS)]
    for agent_id in agents:
        feed(store, agent_id, 5)
    env = fleet_env(
        tmp_path,
        database_url=postgres_url,
        broker_url=redis_server.url,
        batch_size="3",
        max_retries="2",
        fake_llm_outage_file=str(outage),
        breaker_probe_seconds="0.5",
        breaker_max_probe_seconds="2",
    )
    fleet = Fleet(env, tmp_path)
    try:
        fleet.worker("w1", concurrency=2)
        fleet.worker("w2", concurrency=2)
        fleet.beat()
        # The breaker opened, and probes kept failing for a while (each a real call on some worker).
        wait_for(lambda: breaker_probes(pg) >= 3, 120, "the breaker to open and three probes to fail")
        during = queue_counts(pg)
        assert during.get("failed", 0) == 0, during  # no agent parked
        assert during["most_failures"] == 0, during  # no agent's retry budget spent
        raised = provider_alerts(pg)
        assert len(raised) == 1, raised
        assert raised[0].resolved_at is None
        assert "auth" in raised[0].message

        outage.unlink()  # the key is fixed
        wait_for(
            lambda: all(facts(pg, a).folded == facts(pg, a).evicted for a in agents),
            180,
            "every agent summarized after the outage",
        )
    finally:
        fleet.close()
    [incident] = provider_alerts(pg)
    assert incident.resolved_at is not None  # one alert, and its one resolution
    assert queue_counts(pg).get("failed", 0) == 0
    for agent_id in agents:
        assert assert_folded_exactly_once(pg, agent_id).evicted == 3
    with pg.read() as conn:
        parked_runs = conn.execute(
            select(func.count()).where(summary_runs.c.outcome == "parked")
        ).scalar_one()
    assert parked_runs == 0
