"""An update's commit on both databases: it writes everything, or on any failed guard nothing at all."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Connection, select, text, update

from summarizer.composition import build_sql_store
from summarizer.engine.model import Importance, Summary, SummaryItem, Tier
from summarizer.service.results import WorkerConfig
from summarizer.service.update import UpdateService
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import (
    agents,
    exchanges,
    summaries,
    summary_runs,
    summary_update_queue,
)
from summarizer.storage.sql.writers import queue
from summarizer.storage.sql.writers.summaries import swap_summary
from summarizer.storage.values import Claim, LostClaim, RunRecord, StaleSummary, UpdateCommit
from tests.support.fleet import wait_for
from tests.support.workload import (
    assert_folded_exactly_once,
    exchange_messages,
    fake_engine,
    feed,
    make_store,
)


def _now() -> datetime:
    return datetime.now(UTC) + timedelta(seconds=30)  # after anything the store stamped


def _everything(db: Database) -> dict[str, list[Any]]:
    with db.read() as conn:
        return {
            table.name: [tuple(r) for r in conn.execute(select(table).order_by(*table.primary_key.columns))]
            for table in (agents, summary_update_queue, summaries, exchanges, summary_runs)
        }


def _version(version: int, covered: int, agent_id: str = "a") -> Summary:
    now = _now()
    item = SummaryItem(f"i{version}", Tier.SESSION, "did things", now, now, 3, Importance.MEDIUM, (covered,))
    return Summary(
        agent_id=agent_id,
        version=version,
        items=(item,),
        token_count=3,
        covered_through_exchange_id=covered,
        last_aged_on=None,
        updated_at=_now(),
    )


def _commit(claim: Claim, from_version: int, first: int = 1, last: int = 3) -> UpdateCommit:
    now = _now()
    run = RunRecord(agent_id=claim.agent_id, started_at=now, finished_at=now, outcome="ok", exchange_count=3)
    return UpdateCommit(
        claim=claim,
        summary=_version(from_version + 1, last, claim.agent_id),
        from_version=from_version,
        first_exchange_id=first,
        last_exchange_id=last,
        exchange_count=last - first + 1,
        run=run,
        batch_size=3,
        now=now,
    )


def _claimed(db: Database, agent_id: str = "a") -> Claim:
    feed(make_store(db), agent_id, 8)  # evicts exchanges 1..6 (two fit the window)
    with db.write() as conn:
        claim = queue.claim(conn, _now(), 60, agent_id)
    assert claim is not None
    return claim


def test_a_commit_writes_the_summary_the_folds_the_count_the_run_and_completes_the_row(db: Database) -> None:
    claim = _claimed(db)
    committed = build_sql_store(db).commit(_commit(claim, 0))
    assert committed.state == "pending"  # 3 unsummarized exchanges remain: a full batch, still due
    assert committed.alert_resolved is False
    with db.read() as conn:
        assert conn.execute(select(summaries.c.version)).scalar_one() == 1
        folded = conn.execute(
            select(exchanges.c.id).where(exchanges.c.summarized_in_version == 1).order_by(exchanges.c.id)
        ).scalars()
        assert list(folded) == [1, 2, 3]
        assert conn.execute(select(agents.c.unsummarized)).scalar_one() == 3
        assert conn.execute(select(summary_runs.c.exchange_count)).scalar_one() == 3
        assert conn.execute(select(summary_update_queue.c.claim_token)).scalar_one() is None


def _take_over(conn: Connection) -> None:
    conn.execute(update(summary_update_queue).values(claim_token="someone-else"))


def _move_version(conn: Connection) -> None:
    swap_summary(conn, _version(1, 0), 0)  # a first version appeared meanwhile


def _fold_one(conn: Connection) -> None:
    conn.execute(update(exchanges).where(exchanges.c.id == 2).values(summarized_in_version=99))


@pytest.mark.parametrize(
    ("meanwhile", "error"),
    [(_take_over, LostClaim), (_move_version, StaleSummary), (_fold_one, StaleSummary)],
    ids=["claim-taken-over", "version-moved", "exchange-already-folded"],
)
def test_a_failed_guard_writes_nothing(
    db: Database, meanwhile: Callable[[Connection], None], error: type[Exception]
) -> None:
    claim = _claimed(db)
    with db.write() as conn:
        meanwhile(conn)
    before = _everything(db)
    with pytest.raises(error):
        build_sql_store(db).commit(_commit(claim, 0))
    assert _everything(db) == before


def test_a_stale_later_version_writes_nothing(db: Database) -> None:
    claim = _claimed(db)
    build_sql_store(db).commit(_commit(claim, 0))
    with db.write() as conn:
        again = queue.claim(conn, _now(), 60, "a")
        assert again is not None
        conn.execute(update(summaries).values(version=5))  # aging, say, moved it on
    before = _everything(db)
    with pytest.raises(StaleSummary):
        build_sql_store(db).commit(_commit(again, 1, first=4, last=6))
    assert _everything(db) == before


@pytest.mark.parametrize("from_version", [0, 1], ids=["first-version", "next-version"])
def test_on_postgresql_the_commit_locks_the_agent_row_before_the_queue_row(
    pg: Database, from_version: int
) -> None:
    """The conversation store locks the agent row, then arms the queue row. A commit that took the queue row
    first and then waited for the agent row would deadlock with it; it must wait before touching the queue."""
    claim = _claimed(pg)
    update_commit = _commit(claim, 0)
    if from_version:
        build_sql_store(pg).commit(update_commit)
        with pg.write() as conn:
            again = queue.claim(conn, _now(), 60, "a")
        assert again is not None
        update_commit = _commit(again, 1, first=4, last=6)
    holder = pg.engine.connect()
    try:
        holder.begin()
        holder.execute(select(agents.c.id).where(agents.c.id == "a").with_for_update())  # as the store does
        worker = threading.Thread(target=build_sql_store(pg).commit, args=(update_commit,))
        worker.start()

        def waiting_on_a_lock() -> bool:
            activity = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
            with pg.read() as conn:
                return bool(conn.execute(text(activity)).scalar_one())

        wait_for(waiting_on_a_lock, 10, "the commit to wait for the agent row")
        # The queue row is still free: the store's next step would not deadlock.
        holder.execute(
            select(summary_update_queue.c.agent_id)
            .where(summary_update_queue.c.agent_id == "a")
            .with_for_update(nowait=True)
        )
        holder.rollback()
        worker.join(10)
        assert not worker.is_alive()
    finally:
        holder.close()
    with pg.read() as conn:
        version = select(summaries.c.version).where(summaries.c.agent_id == "a")
        assert conn.execute(version).scalar_one() == from_version + 1


def _race_store_and_updates(db: Database, agent_id: str, exchanges_count: int) -> list[BaseException]:
    """One thread records `exchanges_count` exchanges for the agent while two run its updates meanwhile."""
    store = make_store(db)
    service = UpdateService(
        build_sql_store(db), fake_engine(), WorkerConfig(batch_size=3, follow_on_seconds=0)
    )
    failures: list[BaseException] = []
    recorded = threading.Event()

    def record() -> None:
        try:
            for i in range(1, exchanges_count + 1):
                store.record(agent_id, exchange_messages(i))
        except BaseException as exc:
            failures.append(exc)
        finally:
            recorded.set()

    def update() -> None:
        try:
            while not recorded.is_set():
                service.run(agent_id)
        except BaseException as exc:
            failures.append(exc)

    threads = [
        threading.Thread(target=record),
        threading.Thread(target=update),
        threading.Thread(target=update),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)
    # Batches fold however many exchanges waited (3 or more), so a tail of 1-2 may be left below the batch
    # size; it is flushed once it has waited BATCH_MAX_WAIT, which the final drain sets to zero.
    flush = WorkerConfig(batch_size=3, batch_max_wait=0, follow_on_seconds=0)
    UpdateService(build_sql_store(db), fake_engine(), flush).drain(agent_id)
    return failures


def test_on_postgresql_recording_and_updating_an_agent_at_the_same_time_never_deadlock(pg: Database) -> None:
    """The store (agent row, then queue row) races the update (claim, read, commit) for hundreds of rounds,
    three times over. With a commit that could take the queue row before the agent row (before the commit
    statement waited for its agent-row CTE), this test failed with "deadlock detected" in about one run in
    four: a guard that catches a regression often, not always. With the lock order held it never did."""
    for agent_id in ("a", "b", "c"):
        assert _race_store_and_updates(pg, agent_id, 242) == []  # 240 evictions
        assert assert_folded_exactly_once(pg, agent_id).evicted == 240
