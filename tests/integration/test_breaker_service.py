"""The update service behind the provider breaker, on both databases: an outage pauses updates without
spending any agent's retries, a probe closes it, and nothing evicted is lost or folded twice."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import func, select

from summarizer import composition
from summarizer.composition import build_sql_store
from summarizer.domain.breaker_state import PROVIDER_DOWN
from summarizer.domain.retry import RetryPolicy
from summarizer.llm.fake import FakeLLM, fault
from summarizer.llm.fallback import FallbackLLM
from summarizer.service.breaker import BreakerConfig, FleetHealth, ProviderBreaker
from summarizer.service.results import Outcome, WorkerConfig
from summarizer.service.update import UpdateService
from summarizer.settings import load_settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import summary_runs, summary_update_queue
from summarizer.storage.sql.writers import alerts
from summarizer.storage.sql.writers.breakers import SqlBreakerStore
from tests.support.workload import assert_folded_exactly_once, fake_engine, feed, make_store


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC) + timedelta(seconds=30)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def service(db: Database, llm: FakeLLM, clock: Clock) -> UpdateService:
    breaker = ProviderBreaker(
        SqlBreakerStore(db),
        BreakerConfig(provider="fake", first_probe_seconds=10, max_probe_seconds=40),
        clock,
    )
    config = WorkerConfig(batch_size=3, retry=RetryPolicy(max_retries=1, base_seconds=1, max_seconds=2))
    return UpdateService(
        build_sql_store(db), fake_engine(llm), config, clock=clock, rng=random.Random(3), breaker=breaker
    )


def rows(db: Database) -> list[tuple[str, str, int]]:
    with db.read() as conn:
        q = summary_update_queue.c
        return [tuple(r) for r in conn.execute(select(q.agent_id, q.state, q.consecutive_failures))]


def runs_by_outcome(db: Database) -> dict[str, int]:
    with db.read() as conn:
        r = summary_runs.c
        return {o: int(n) for o, n in conn.execute(select(r.outcome, func.count()).group_by(r.outcome))}


def test_an_auth_outage_pauses_every_agent_unpaid_and_a_probe_resumes_them(db: Database) -> None:
    store = make_store(db)
    agents = [f"agent-{n}" for n in range(4)]
    for agent_id in agents:
        feed(store, agent_id, 5)
    clock = Clock()
    llm = FakeLLM([fault("auth"), fault("auth")])  # the outage: the first call and the first probe fail
    svc = service(db, llm, clock)

    first = svc.run()
    assert first.outcome is Outcome.PAUSED
    assert svc.provider_paused()
    for _ in range(5):  # every worker's next wake-ups: paused before any claim, no call made
        assert svc.run().outcome is Outcome.PAUSED
    assert llm.calls == 1
    assert all(state == "pending" and failures == 0 for _, state, failures in rows(db))

    clock.advance(10)
    assert svc.run().outcome is Outcome.PAUSED  # the probe: failed again, the wait doubles
    assert llm.calls == 2
    clock.advance(10)
    assert svc.run().outcome is Outcome.PAUSED  # not yet
    assert llm.calls == 2

    clock.advance(10)
    report = svc.drain()  # the probe succeeds (the outage is over) and everyone follows
    assert not svc.provider_paused()
    assert report.by_outcome.get("ok", 0) == len(agents)
    for agent_id in agents:
        assert assert_folded_exactly_once(db, agent_id).evicted == 3
    assert all(state == "idle" and failures == 0 for _, state, failures in rows(db))
    assert runs_by_outcome(db) == {"paused": 2, "ok": len(agents)}
    with db.read() as conn:
        incidents = [a for a in alerts.list_alerts(conn) if a.kind == PROVIDER_DOWN]
        parked_alerts = [a for a in alerts.list_alerts(conn) if a.agent_id is not None]
    assert len(incidents) == 1
    assert incidents[0].resolved_at is not None
    assert parked_alerts == []


def test_a_bad_batch_is_still_the_agents_own_failure(db: Database) -> None:
    feed(make_store(db), "bad", 5)
    clock = Clock()
    llm = FakeLLM([fault("permanent")])
    result = service(db, llm, clock).run()
    assert result.outcome is Outcome.PARKED  # no breaker: a 400 is this batch's, not the provider's
    with db.read() as conn:
        assert not [a for a in alerts.list_alerts(conn) if a.kind == PROVIDER_DOWN]


def test_with_a_fallback_the_chain_uses_the_fleet_breaker_and_updates_are_never_paused(
    tmp_path: Path,
) -> None:
    settings = load_settings(llm="fake", llm_fallback="offline", data_dir=tmp_path, database_url="")
    db = composition.open_database(settings)
    svc = composition.build_update_service(settings, db)
    chain = svc.engine._llm
    assert isinstance(chain, FallbackLLM)
    assert isinstance(chain.health, FleetHealth)
    assert svc.breaker is None  # the fallback answers while the breaker is open: nothing to pause
    chain.health.record_failure(fault("auth"))
    assert chain.health.breaker.is_open()  # opened in the database, for every worker
    assert not chain.health.allow_call()  # the fallback answers now
