"""A batch of many agents' messages costs statements per batch, not per agent, and stores exactly what
recording each agent on its own stores."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import agents, exchanges, messages
from summarizer.storage.sql.statements.schema import summary_update_queue as q
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig
from tests.support.conversations import conversations
from tests.support.statements import counting_statements

T0 = datetime(2026, 3, 1, tzinfo=UTC)
_runs = itertools.count()


def turn(i: int, agent: int) -> list[NewMessage]:
    at = T0 + timedelta(minutes=i)
    return [
        NewMessage(Kind.USER, f"agent {agent}: please fix test {i}", created_at=at, host_id=f"u{i}"),
        NewMessage(
            Kind.TOOL_CALL, "", tool_call_id=f"c{i}", name="bash", input={"cmd": "pytest"}, created_at=at
        ),
        NewMessage(Kind.TOOL_RESULT, "1 failed " * 20, tool_call_id=f"c{i}", created_at=at),
        NewMessage(Kind.ASSISTANT, f"fixed test {i}", created_at=at, host_id=f"a{i}"),
    ]


def interleaved(agent_ids: list[str], turns: range) -> list[tuple[str, NewMessage]]:
    streams = {a: [m for i in turns for m in turn(i, n)] for n, a in enumerate(agent_ids)}
    length = len(next(iter(streams.values())))
    return [(a, streams[a][k]) for k in range(length) for a in agent_ids]


def test_statements_per_batch_do_not_grow_with_the_number_of_agents(db: Database) -> None:
    store = ConversationStore(db, StoreConfig(window_tokens=300, batch_size=2), clock=lambda: T0)
    run = next(_runs)
    counts = {}
    for n_agents in (2, 40):
        ids = [f"many-{run}-{n_agents}-{k}" for k in range(n_agents)]
        store.record_many(interleaved(ids, range(0, 3)))  # creates the agents
        with counting_statements(db) as seen:
            report = store.record_many(interleaved(ids, range(3, 9)))  # grows, evicts, arms queue rows
        assert report.stored == n_agents * 24
        assert len(report.queued_agents) == n_agents
        counts[n_agents] = len(seen)
    assert counts[40] <= counts[2], counts  # 40 agents: COPY instead of an executemany


def snapshot(db: Database, agent_ids: list[str], rename: dict[str, str]) -> dict[str, Any]:
    with db.read() as conn:
        out: dict[str, Any] = {}
        for table, order in ((messages, messages.c.seq), (exchanges, exchanges.c.id)):
            rows = conn.execute(
                select(table).where(table.c.agent_id.in_(agent_ids)).order_by(table.c.agent_id, order)
            ).mappings()
            out[table.name] = sorted(
                (
                    (rename[r["agent_id"]], tuple(v for k, v in sorted(r.items()) if k != "agent_id"))
                    for r in rows
                ),
                key=repr,
            )
        rows = conn.execute(select(agents).where(agents.c.id.in_(agent_ids))).mappings()
        out["agents"] = sorted(
            (
                (rename[r["id"]], tuple(v for k, v in sorted(r.items()) if k not in ("id", "created_at")))
                for r in rows
            ),
            key=repr,
        )
        queue_rows = conn.execute(
            select(q.c.agent_id, q.c.state, q.c.dirty).where(q.c.agent_id.in_(agent_ids))
        )
        out["queue"] = sorted((rename[r.agent_id], r.state, r.dirty) for r in queue_rows)
    return out


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    talks=st.lists(conversations(max_steps=30), min_size=2, max_size=4),
    budget=st.integers(min_value=0, max_value=600),
    cut=st.integers(min_value=1, max_value=30),
)
def test_a_many_agent_batch_stores_what_one_agent_at_a_time_stores(
    db: Database, talks: list[list[NewMessage]], budget: int, cut: int
) -> None:
    run = next(_runs)
    store = ConversationStore(db, StoreConfig(window_tokens=budget, batch_size=2), clock=lambda: T0)
    together = [f"together-{run}-{k}" for k in range(len(talks))]
    alone = [f"alone-{run}-{k}" for k in range(len(talks))]
    for part in (slice(0, cut), slice(cut, None)):
        store.record_many(
            [
                (a, m)
                for position in range(30)
                for a, talk in zip(together, talks, strict=True)
                for m in talk[part][position : position + 1]
            ]
        )
        for a, talk in zip(alone, talks, strict=True):
            if talk[part]:
                store.record(a, talk[part])
    names = {
        **{a: f"agent-{k}" for k, a in enumerate(together)},
        **{a: f"agent-{k}" for k, a in enumerate(alone)},
    }
    assert snapshot(db, together, names) == snapshot(db, alone, names)
