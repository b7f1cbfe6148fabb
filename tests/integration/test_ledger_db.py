"""The provenance ledger on SQLite and PostgreSQL: a random run through the update service partitions the
evicted set after every step, and drops and kept versions commit with their version (one statement on
PostgreSQL) or not at all."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from summarizer.composition import build_sql_store
from summarizer.domain.retry import RetryPolicy
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine.engine import EngineConfig, SummaryEngine
from summarizer.llm.fake import FakeLLM
from summarizer.service.ledger import ledger_entries
from summarizer.service.provenance import Provenance
from summarizer.service.results import WorkerConfig
from summarizer.service.update import UpdateService
from summarizer.storage.port import ProvenanceFacts
from summarizer.storage.sql import migrations
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import exchange_drops, summary_versions
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig
from tests.contract.ledger_runs import random_run
from tests.contract.support import Clock
from tests.support.workload import exchange_messages


@pytest.mark.parametrize("seed", [3, 11])
def test_a_random_run_keeps_the_ledger_a_partition(db: Database, seed: int) -> None:
    conversations = ConversationStore(db, StoreConfig(window_tokens=60, batch_size=3))
    sql = build_sql_store(db)
    clock = Clock(datetime.now(UTC) + timedelta(minutes=1))  # after the wall-clock stamps of the queue
    llm = FakeLLM()
    engine = SummaryEngine(llm, ByteEstimateCounter(), EngineConfig(max_tokens=360))
    cfg = WorkerConfig(batch_size=3, follow_on_seconds=0, retry=RetryPolicy(max_retries=2, base_seconds=1))
    svc = UpdateService(sql, engine, cfg, clock=clock)

    def evict(ids: list[int], at: Any) -> None:
        for i in ids:
            conversations.record("a", exchange_messages(i, at))

    def facts() -> ProvenanceFacts:
        return sql.provenance("a") or ProvenanceFacts(None, ())

    random_run(
        seed,
        svc,
        llm,
        clock,
        evict,
        facts,
        Provenance(sql, clock=clock),
        25,
        backfill=False,
        store_decides_eviction=True,
    )
    with db.read() as conn:
        kept = conn.execute(select(func.count()).select_from(summary_versions)).scalar_one()
        current = facts().summary
        assert current is not None
        assert kept == current.version
        assert conn.execute(select(func.count()).select_from(exchange_drops)).scalar_one() == len(
            facts().drops
        )


def test_exchanges_forgotten_before_the_ledger_are_dropped_as_pre_ledger_by_the_migration(
    db: Database,
) -> None:
    conversations = ConversationStore(db, StoreConfig(window_tokens=60, batch_size=3))
    sql = build_sql_store(db)
    now = datetime.now(UTC)
    clock = Clock(now + timedelta(minutes=1))
    engine = SummaryEngine(FakeLLM(), ByteEstimateCounter(), EngineConfig())
    svc = UpdateService(sql, engine, WorkerConfig(batch_size=3, follow_on_seconds=0), clock=clock)
    for i in range(1, 13):  # 1-6 ended three weeks ago: they age out as they are folded
        conversations.record(
            "a", exchange_messages(i, now - timedelta(days=21 if i <= 6 else 0, minutes=13 - i))
        )
    svc.drain("a")

    def states() -> dict[int, tuple[str, str | None]]:
        facts = sql.provenance("a")
        assert facts is not None
        return {e.id: (e.state, e.reason) for e in ledger_entries(facts)}

    before = states()
    assert {x: before[x] for x in range(1, 7)} == dict.fromkeys(range(1, 7), ("dropped", "aging"))
    summarized = [x for x, (state, _) in before.items() if state == "summarized"]
    assert summarized
    # A database from before the ledger: the same forgetting, no drop rows (5 and 6 keep theirs).
    with db.write() as conn:
        conn.execute(exchange_drops.delete().where(exchange_drops.c.exchange_id <= 4))
    assert {states()[x] for x in range(1, 5)} == {("unaccounted", None)}

    migrations.downgrade(db, "0005")
    migrations.upgrade(db)
    after = states()
    assert {after[x] for x in range(1, 5)} == {("dropped", "pre_ledger")}
    assert after == {**before, **dict.fromkeys(range(1, 5), ("dropped", "pre_ledger"))}
    facts = sql.provenance("a")
    assert facts is not None
    assert facts.summary is not None
    pre = [d for d in facts.drops if d.reason == "pre_ledger"]
    assert sorted(d.exchange_id for d in pre) == [1, 2, 3, 4]
    assert {d.version for d in pre} == {facts.summary.version}
    assert all("before the provenance ledger" in d.detail for d in pre)

    migrations.downgrade(db, "0005")  # takes back exactly its own rows
    assert {states()[x] for x in range(1, 5)} == {("unaccounted", None)}
    assert states()[5] == ("dropped", "aging")
    migrations.upgrade(db)
