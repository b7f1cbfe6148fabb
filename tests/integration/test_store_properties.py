"""The window invariants again, through the real store and database: a message is in the window when its
exchange is at or after the agent's window start, and exactly the exchanges before it are marked evicted."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import agents, exchanges, messages
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig
from tests.support.conversations import WindowMessage, check_window_invariants, conversations

T0 = datetime(2026, 3, 1, tzinfo=UTC)
_agent_numbers = itertools.count()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    batch=conversations(max_steps=40),
    budget=st.integers(min_value=0, max_value=800),
    cuts=st.lists(st.integers(min_value=1, max_value=40), max_size=3),
)
def test_stored_window_keeps_invariants(
    db: Database, batch: list[NewMessage], budget: int, cuts: list[int]
) -> None:
    agent_id = f"prop-{next(_agent_numbers)}"  # the database outlives examples: a fresh agent each time
    store = ConversationStore(db, StoreConfig(window_tokens=budget, batch_size=2), clock=lambda: T0)
    bounds = sorted({0, len(batch), *(c for c in cuts if c < len(batch))})
    for start, end in itertools.pairwise(bounds):
        store.record(agent_id, batch[start:end])
        with db.read() as conn:
            state = conn.execute(select(agents).where(agents.c.id == agent_id)).mappings().one()
            rows = conn.execute(
                select(messages).where(messages.c.agent_id == agent_id).order_by(messages.c.seq)
            ).mappings()
            stored = [
                WindowMessage(
                    seq=r["seq"],
                    kind=Kind(r["kind"]),
                    exchange=r["exchange_id"],
                    in_window=r["exchange_id"] is None or r["exchange_id"] >= state["window_start"],
                    tokens=r["tokens"],
                    tool_call_id=r["tool_call_id"],
                    continues_exchange=r["continues_exchange"],
                )
                for r in rows
            ]
            marked = conn.execute(
                select(exchanges.c.id, exchanges.c.evicted_at).where(exchanges.c.agent_id == agent_id)
            ).all()
        for number, evicted_at in marked:
            assert (evicted_at is not None) is (number < state["window_start"]), (
                number,
                state["window_start"],
            )
        in_window_exchanges = max(0, state["last_exchange"] - state["window_start"] + 1)
        check_window_invariants(stored, budget, state["window_tokens"], in_window_exchanges)
