"""Conversations that evict on a schedule, and the exactly-once checks every worker test ends with."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine.engine import SummaryEngine
from summarizer.llm.fake import FakeLLM
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import (
    agents,
    exchanges,
    summaries,
    summary_runs,
    summary_update_queue,
)
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig

EXCHANGE_TOKENS = 20  # user 10 + assistant 10
WINDOW_TOKENS = 45  # two exchanges fit; the third evicts the oldest


def module_changes(start: int, n: int) -> list[NewMessage]:
    """Exchanges `start` .. `start + n - 1`: a request to change a module and its answer, about 35 words
    each, their tokens left for the counter to count."""
    words = " ".join(f"w{i}" for i in range(30))
    out: list[NewMessage] = []
    for i in range(start, start + n):
        out.append(NewMessage(Kind.USER, f"Please change module {i}: {words}"))
        out.append(NewMessage(Kind.ASSISTANT, f"Changed module {i}; the tests pass. {words}"))
    return out


def exchange_messages(i: int, at: datetime | None = None) -> list[NewMessage]:
    when = at or datetime.now(UTC) - timedelta(minutes=5)
    return [
        NewMessage(Kind.USER, f"Please implement feature number {i} with tests.", tokens=10, created_at=when),
        NewMessage(Kind.ASSISTANT, f"Implemented feature {i}; all tests pass.", tokens=10, created_at=when),
    ]


def make_store(db: Database, batch_size: int = 3) -> ConversationStore:
    return ConversationStore(db, StoreConfig(window_tokens=WINDOW_TOKENS, batch_size=batch_size))


def feed(
    store: ConversationStore,
    agent_id: str,
    exchanges_count: int,
    start: int = 1,
    on_queued: Callable[[Sequence[str]], None] | None = None,
) -> int:
    """Record `exchanges_count` exchanges one at a time; returns how many evicted."""
    evicted = 0
    for i in range(start, start + exchanges_count):
        report = store.record(agent_id, exchange_messages(i))
        evicted += report.evicted_exchanges
        if on_queued and report.queued_agents:
            on_queued(report.queued_agents)
    return evicted


def fake_engine(llm: FakeLLM | None = None) -> SummaryEngine:
    return SummaryEngine(llm or FakeLLM(), ByteEstimateCounter())


@dataclass(frozen=True)
class AgentFacts:
    evicted: int
    folded: int
    covered: int
    version: int
    ok_run_exchanges: int
    unsummarized: int
    queue_state: str | None


def facts(db: Database, agent_id: str) -> AgentFacts:
    with db.read() as conn:
        evicted = conn.execute(
            select(func.count()).where(exchanges.c.agent_id == agent_id, exchanges.c.evicted_at.is_not(None))
        ).scalar_one()
        folded = conn.execute(
            select(func.count()).where(
                exchanges.c.agent_id == agent_id, exchanges.c.summarized_in_version.is_not(None)
            )
        ).scalar_one()
        summary = conn.execute(select(summaries).where(summaries.c.agent_id == agent_id)).mappings().first()
        ok = conn.execute(
            select(func.coalesce(func.sum(summary_runs.c.exchange_count), 0)).where(
                summary_runs.c.agent_id == agent_id, summary_runs.c.outcome == "ok"
            )
        ).scalar_one()
        unsummarized = conn.execute(select(agents.c.unsummarized).where(agents.c.id == agent_id)).scalar_one()
        state = conn.execute(
            select(summary_update_queue.c.state).where(summary_update_queue.c.agent_id == agent_id)
        ).scalar()
    return AgentFacts(
        evicted=evicted,
        folded=folded,
        covered=(summary["covered_through_exchange_id"] or 0) if summary else 0,
        version=summary["version"] if summary else 0,
        ok_run_exchanges=int(ok),
        unsummarized=unsummarized,
        queue_state=state,
    )


def assert_folded_exactly_once(db: Database, agent_id: str, *, complete: bool = True) -> AgentFacts:
    """Every folded exchange was folded by exactly one successful run; with `complete`, all evicted ones."""
    f = facts(db, agent_id)
    assert f.ok_run_exchanges == f.folded, f
    assert f.covered == f.folded, f
    assert f.unsummarized == f.evicted - f.folded, f
    if complete:
        assert f.folded == f.evicted, f
    return f
