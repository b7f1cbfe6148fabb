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
from summarizer.service.provenance import Provenance
from summarizer.service.results import WorkerConfig
from summarizer.service.update import UpdateService
from summarizer.storage.conversations import ConversationStore, StoreConfig
from summarizer.storage.database import Database
from summarizer.storage.port import ProvenanceFacts
from summarizer.storage.schema import exchange_drops, summary_versions
from tests.support.workload import exchange_messages
from tests.unit.service.ledger_runs import random_run
from tests.unit.service.support import Clock


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
