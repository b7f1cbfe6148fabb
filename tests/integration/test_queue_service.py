"""The queue and the update service on both databases: claims, fencing, CAS, retries, parking, aging."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from summarizer.composition import build_sql_store
from summarizer.domain.retry import RetryPolicy
from summarizer.engine.engine import SummaryEngine
from summarizer.engine.ports import LLMPermanentError, LLMTransientError
from summarizer.llm.fake import FakeLLM
from summarizer.service.results import Outcome, WorkerConfig
from summarizer.service.update import UpdateService
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import summaries, summary_runs, summary_update_queue
from summarizer.storage.sql.writers import alerts, queue
from tests.support.rows import queue_row
from tests.support.workload import assert_folded_exactly_once, facts, fake_engine, feed, make_store


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC) + timedelta(seconds=30)  # after anything the store stamps meanwhile

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def service(
    db: Database, engine: SummaryEngine | None = None, clock: Clock | None = None, **config: object
) -> UpdateService:
    defaults: dict[str, Any] = {
        "batch_size": 3,
        "retry": RetryPolicy(max_retries=2, base_seconds=1, max_seconds=4),
    }
    cfg = WorkerConfig(**{**defaults, **config})
    return UpdateService(build_sql_store(db), engine or fake_engine(), cfg, clock=clock, rng=random.Random(7))


def test_drain_folds_every_evicted_exchange_once(db: Database) -> None:
    store = make_store(db)
    for n in range(3):
        feed(store, f"agent-{n}", 12)
    report = service(db).drain()
    assert report.by_outcome.get("ok", 0) >= 3
    for n in range(3):
        f = assert_folded_exactly_once(db, f"agent-{n}")
        assert f.evicted == 10
        assert f.queue_state == "idle"


def test_one_task_goes_on_with_the_agents_next_full_batches_while_its_budget_lasts(db: Database) -> None:
    feed(make_store(db), "a", 12)  # 10 evicted: three full batches of 3, one left waiting
    svc = service(db, max_batch_exchanges=3)
    first = svc.run_backlog("a", budget_seconds=0)  # no budget: one batch, the row stays due
    assert first.outcome is Outcome.OK
    assert first.requeued
    assert facts(db, "a").folded == 3
    last = svc.run_backlog("a", budget_seconds=60)
    assert last.outcome is Outcome.OK
    assert not last.requeued  # the one left over waits for BATCH_MAX_WAIT
    assert facts(db, "a").folded == 9
    assert_folded_exactly_once(db, "a", complete=False)


def test_a_duplicate_wake_up_claims_nothing(db: Database) -> None:
    feed(make_store(db), "a", 6)
    svc = service(db)
    assert svc.run("a").outcome is Outcome.OK
    assert svc.run("a").outcome is Outcome.NOTHING
    assert svc.run("nobody").outcome is Outcome.NOTHING
    assert_folded_exactly_once(db, "a", complete=False)


def test_a_wake_up_whose_agent_has_nothing_due_serves_the_most_urgent_due_row(db: Database) -> None:
    store = make_store(db)
    feed(store, "a", 6)
    feed(store, "b", 6)
    svc = service(db)
    assert svc.run("a").outcome is Outcome.OK  # "a" is idle now; "b" still waits
    plain = svc.run_backlog("a")
    assert plain.outcome is Outcome.NOTHING  # without or_any a duplicate wake-up does nothing
    served = svc.run_backlog("a", or_any=True)
    assert (served.agent_id, served.outcome) == ("b", Outcome.OK)
    assert svc.run_backlog(None, or_any=True).outcome is Outcome.NOTHING  # nothing due anywhere
    assert_folded_exactly_once(db, "a", complete=False)
    assert_folded_exactly_once(db, "b", complete=False)


def test_claims_are_exclusive_and_fenced(db: Database) -> None:
    feed(make_store(db), "a", 6)
    clock = Clock()
    with db.write() as conn:
        first = queue.claim(conn, clock.now, 10, "a")
    assert first is not None
    with db.write() as conn:
        assert queue.claim(conn, clock.now, 10, "a") is None  # held, lease not expired
    clock.advance(11)
    with db.write() as conn:
        second = queue.claim(conn, clock.now, 10, "a")  # lease expired: rescued
    assert second is not None
    assert second.token != first.token
    assert second.consecutive_failures == 1
    with db.write() as conn:
        assert not queue.complete(conn, "a", first.token, clock.now, more_work=False)
        assert not queue.release(conn, "a", first.token, clock.now)
        assert queue.complete(conn, "a", second.token, clock.now, more_work=False)
        assert queue_row(conn, "a").state == "idle"  # type: ignore[union-attr]


def test_new_evictions_while_running_send_the_row_back_to_pending(db: Database) -> None:
    store = make_store(db)
    feed(store, "a", 6)
    clock = Clock()
    with db.write() as conn:
        claim = queue.claim(conn, clock.now, 60, "a")
    assert claim is not None
    feed(store, "a", 3, start=7)  # arms the running row: dirty
    with db.write() as conn:
        assert queue.complete(conn, "a", claim.token, clock.now, more_work=False)
        assert queue_row(conn, "a").state == "pending"  # type: ignore[union-attr]


def test_a_worker_whose_lease_was_taken_over_writes_nothing(db: Database) -> None:
    feed(make_store(db), "a", 6)
    clock = Clock()
    svc = service(db, clock=clock, lease_seconds=5)
    takeover: list[Outcome] = []

    class SlowLLM(FakeLLM):
        def complete(self, request):  # type: ignore[no-untyped-def]
            clock.advance(6)  # the lease runs out during the call; another worker takes over and finishes
            if not takeover:
                takeover.append(
                    UpdateService(build_sql_store(db), fake_engine(), svc.config, clock=clock)
                    .run("a")
                    .outcome
                )
            return super().complete(request)

    result = UpdateService(build_sql_store(db), fake_engine(SlowLLM()), svc.config, clock=clock).run("a")
    assert takeover == [Outcome.OK]
    assert result.outcome is Outcome.LOST
    assert_folded_exactly_once(db, "a", complete=False)


def test_a_stale_version_is_discarded_and_requeued(db: Database) -> None:
    feed(make_store(db), "a", 6)
    clock = Clock()
    svc = service(db, clock=clock)

    class RacingLLM(FakeLLM):
        def complete(self, request):  # type: ignore[no-untyped-def]
            with db.write() as conn:  # something else (say, aging) bumps the version meanwhile
                conn.execute(
                    update(summaries)
                    .where(summaries.c.agent_id == "a")
                    .values(version=summaries.c.version + 1)
                )
            return super().complete(request)

    assert svc.run("a").outcome is Outcome.OK  # version 1 exists now
    feed(make_store(db), "a", 3, start=7)
    result = UpdateService(build_sql_store(db), fake_engine(RacingLLM()), svc.config, clock=clock).run("a")
    assert result.outcome is Outcome.STALE
    with db.read() as conn:
        assert queue_row(conn, "a").state == "pending"  # type: ignore[union-attr]
    assert svc.run("a").outcome is Outcome.OK
    assert_folded_exactly_once(db, "a")


def test_transient_failures_back_off_then_park_with_one_alert_then_requeue_recovers(db: Database) -> None:
    feed(make_store(db), "a", 6)
    clock = Clock()
    llm = FakeLLM([LLMTransientError("overloaded")] * 3)
    svc = service(db, fake_engine(llm), clock)
    assert svc.run("a").outcome is Outcome.RETRY
    with db.read() as conn:
        row = queue_row(conn, "a")
    assert row is not None
    assert row.state == "pending"
    assert row.available_at > clock.now
    assert row.priority == 1
    assert svc.run("a").outcome is Outcome.NOTHING  # backing off
    clock.advance(10)
    assert svc.run("a").outcome is Outcome.RETRY
    clock.advance(10)
    assert svc.run("a").outcome is Outcome.PARKED
    clock.advance(10)
    assert svc.drain().runs == 0  # parked rows are not due
    feed(make_store(db), "a", 3, start=7)  # more evictions do not wake a parked agent
    with db.read() as conn:
        assert queue_row(conn, "a").state == "failed"  # type: ignore[union-attr]
        open_alerts = alerts.list_alerts(conn, agent_id="a", open_only=True)
        runs = conn.execute(select(summary_runs.c.outcome).order_by(summary_runs.c.id)).scalars().all()
    assert len(open_alerts) == 1
    assert open_alerts[0].severity == "critical"
    assert runs == ["retry", "retry", "parked"]
    assert svc.requeue("a") == "failed"
    assert svc.drain().by_outcome["ok"] >= 1
    with db.read() as conn:
        assert alerts.list_alerts(conn, agent_id="a", open_only=True) == []
        assert queue_row(conn, "a").consecutive_failures == 0  # type: ignore[union-attr]
    assert_folded_exactly_once(db, "a")


def test_a_permanent_failure_parks_at_once_and_keeps_the_last_summary(db: Database) -> None:
    store = make_store(db)
    feed(store, "a", 6)
    clock = Clock()
    assert service(db, clock=clock).run("a").outcome is Outcome.OK
    before = facts(db, "a")
    feed(store, "a", 3, start=7)
    svc = service(db, fake_engine(FakeLLM([LLMPermanentError("bad request")])), clock)
    assert svc.run("a").outcome is Outcome.PARKED
    after = facts(db, "a")
    assert after.version == before.version
    assert after.folded == before.folded
    assert svc.requeue("a") == "failed"
    assert svc.requeue("nobody") is None


def test_rejected_answers_are_retried(db: Database) -> None:
    feed(make_store(db), "a", 6)
    llm = FakeLLM([{"add": "not a list"}])
    assert service(db, fake_engine(llm)).run("a").outcome is Outcome.RETRY


def test_fresh_work_ranks_before_retries(db: Database) -> None:
    store = make_store(db)
    feed(store, "retrying", 6)
    clock = Clock()
    service(db, fake_engine(FakeLLM([LLMTransientError("x")])), clock).run("retrying")
    clock.advance(60)
    feed(store, "fresh", 6)
    with db.read() as conn:
        assert queue.due_agents(conn, clock.now, 10) == ["fresh", "retrying"]


def test_a_small_batch_waits_then_is_flushed_after_batch_max_wait(db: Database) -> None:
    feed(make_store(db), "a", 3)  # one eviction: below the batch size, nothing queued
    clock = Clock()
    svc = service(db, clock=clock, batch_max_wait=60)
    assert svc.due() == []
    clock.advance(61)
    assert svc.due() == ["a"]
    assert svc.run("a").outcome is Outcome.OK
    assert_folded_exactly_once(db, "a")


def test_rescue_takes_back_expired_leases_and_parks_repeat_crashers(db: Database) -> None:
    feed(make_store(db), "a", 6)
    clock = Clock()
    svc = service(db, clock=clock, lease_seconds=5)
    for expected_parked in (False, False, True):
        with db.write() as conn:
            assert queue.claim(conn, clock.now, 5, "a") is not None
        clock.advance(6)
        rescued = svc.rescue()
        assert [r.parked for r in rescued] == [expected_parked]
    with db.read() as conn:
        assert len(alerts.list_alerts(conn, agent_id="a", open_only=True)) == 1


def test_queue_listing_and_aging_once_per_day(db: Database) -> None:
    feed(make_store(db), "a", 6)
    clock = Clock()
    svc = service(db, clock=clock)
    svc.drain()
    with db.read() as conn:
        rows = queue.list_rows(conn)
    assert [r.to_json()["state"] for r in rows] == ["idle"]
    assert set(rows[0].to_json()) == {
        "agent_id",
        "state",
        "priority",
        "attempts",
        "consecutive_failures",
        "queued_at",
        "available_at",
        "lease_expires_at",
    }
    assert svc.age_all() == 1
    assert svc.age_all() == 0  # idempotent within the day
    clock.advance(86_400 * 2)  # downtime: the first sweep after it catches up
    assert svc.age_all() == 1
    with db.read() as conn:
        aged_on = conn.execute(select(summaries.c.last_aged_on)).scalar_one()
        state = conn.execute(select(summary_update_queue.c.state)).scalar_one()
    assert aged_on == clock.now.date()
    assert state == "idle"


@pytest.mark.parametrize("batch_size", [1, 4])
def test_batches_respect_size_and_token_bounds(db: Database, batch_size: int) -> None:
    feed(make_store(db, batch_size=batch_size), "a", 20)
    svc = service(db, batch_size=batch_size, max_batch_input_tokens=60)  # three 20-token exchanges
    svc.drain()
    with db.read() as conn:
        counts = conn.execute(select(summary_runs.c.exchange_count)).scalars().all()
    assert max(counts) <= 3
    f = assert_folded_exactly_once(db, "a", complete=False)
    assert f.unsummarized < batch_size  # the rest waits for a full batch (or BATCH_MAX_WAIT)
