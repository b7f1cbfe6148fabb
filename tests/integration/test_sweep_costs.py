"""The beat's sweeps cost statements per sweep, not per agent; the claim takes the most urgent row."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import select, update

from summarizer.composition import build_sql_store
from summarizer.domain.retry import RetryPolicy
from summarizer.service.results import WorkerConfig
from summarizer.service.update import UpdateService
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import agents, summaries
from summarizer.storage.sql.statements.schema import summary_update_queue as q
from summarizer.storage.sql.writers import queue
from tests.support.statements import counting_statements
from tests.support.workload import fake_engine, feed, make_store


def service(db: Database) -> UpdateService:
    config = WorkerConfig(batch_size=3, batch_max_wait=60, retry=RetryPolicy(max_retries=2))
    return UpdateService(
        build_sql_store(db), fake_engine(), config, clock=lambda: datetime.now(UTC), rng=random.Random(7)
    )


def test_an_aging_page_costs_the_same_statements_for_3_or_30_agents(db: Database) -> None:
    store = make_store(db)
    statements = {}
    for count in (3, 30):
        names = [f"aged-{count}-{k}" for k in range(count)]
        for name in names:
            feed(store, name, 6)
        svc = service(db)
        svc.drain()
        with db.write() as conn:  # every summary is due for today's pass
            conn.execute(update(summaries).values(last_aged_on=date(2000, 1, 1)))
        with counting_statements(db) as seen:
            aged = svc.age_all()
        assert aged == len(names) + (3 if count == 30 else 0)
        statements[count] = len(seen) - aged  # one compare-and-swap per aged summary, all in one transaction
    assert statements[30] == statements[3], statements


def test_a_dispatcher_run_arms_many_waiting_agents_in_one_statement(db: Database) -> None:
    now = datetime.now(UTC)
    store = make_store(db, batch_size=3)
    statements = {}
    for count in (2, 20):
        names = [f"waiting-{count}-{k}" for k in range(count)]
        for name in names:
            feed(store, name, 4)  # two evicted exchanges: fewer than a batch
        with db.write() as conn:
            conn.execute(
                update(agents)
                .where(agents.c.id.in_(names))
                .values(unsummarized_since=now - timedelta(hours=1))
            )
        with counting_statements(db) as seen:
            due = service(db).due()
        assert set(names) <= set(due)
        statements[count] = len(seen)
    assert statements[20] == statements[2], statements


def test_a_claim_takes_an_expired_lease_first_then_pending_rows_by_priority_and_age(db: Database) -> None:
    now = datetime.now(UTC)
    store = make_store(db)
    for name in ("fresh-new", "fresh-old", "retry", "crashed", "later"):
        feed(store, name, 6)
    with db.write() as conn:
        changes: dict[str, dict[str, Any]] = {
            "fresh-new": {"available_at": now - timedelta(seconds=1)},
            "fresh-old": {"available_at": now - timedelta(seconds=9)},
            "retry": {"priority": 1, "available_at": now - timedelta(seconds=60)},
            "crashed": {
                "state": "running",
                "lease_expires_at": now - timedelta(seconds=1),
                "claim_token": "x",
            },
            "later": {"available_at": now + timedelta(seconds=60)},
        }
        for name, values in changes.items():
            conn.execute(update(q).where(q.c.agent_id == name).values(**values))
    order = []
    with db.write() as conn:
        while (claim := queue.claim(conn, now, 300)) is not None:
            order.append(claim.agent_id)
    assert order == ["crashed", "fresh-old", "fresh-new", "retry"]
    with db.read() as conn:
        assert conn.execute(select(q.c.state).where(q.c.agent_id == "later")).scalar_one() == "pending"
