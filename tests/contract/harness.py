"""One contract, every backend: the update service's tests run against the in-memory fake, SQLite and
PostgreSQL alike. Each backend is reached through the storage port only; what a test seeds (exchanges that
left the window) and inspects (queue rows, runs, alerts, folded exchanges) goes through this harness, which
reads the SQL backends' tables the way the fake exposes its dicts."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol, cast

from sqlalchemy import func, select, update

from summarizer.composition import build_sql_store
from summarizer.domain.messages import EvictedExchange
from summarizer.storage.port import SteeringStore, UpdateStore
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import agents, alerts, exchanges, messages, summary_runs
from summarizer.storage.sql.statements.schema import summary_update_queue as q
from summarizer.storage.sql.writers.queue_upsert import arm_queue_row
from summarizer.storage.values import RunRecord
from summarizer.testing.memory_rows import MemoryAgent, MemoryAlert, MemoryRow


class ContractStore(UpdateStore, SteeringStore, Protocol):
    """A backend under contract: the port, plus seeding and inspection (the in-memory fake has these
    natively; the SQL backends get them from `SqlInspection`)."""

    def evict(self, agent_id: str, exchanges: Iterable[EvictedExchange], now: datetime) -> None: ...

    @property
    def rows(self) -> Mapping[str, Any]: ...

    @property
    def runs(self) -> Sequence[RunRecord]: ...

    @property
    def alerts(self) -> Sequence[MemoryAlert]: ...

    @property
    def agents(self) -> Mapping[str, MemoryAgent]: ...

    def folded(self, agent_id: str) -> dict[int, int | None]: ...


class _Rows(Mapping[str, Any]):
    """Queue rows as the fake shows them; assigning a field writes it through to the table."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def _ids(self) -> list[str]:
        with self.db.read() as conn:
            return list(conn.execute(select(q.c.agent_id).order_by(q.c.agent_id)).scalars())

    def __getitem__(self, agent_id: str) -> _RowView:
        if agent_id not in self._ids():
            raise KeyError(agent_id)
        return _RowView(self.db, agent_id)

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids())

    def __len__(self) -> int:
        return len(self._ids())


class _RowView:
    def __init__(self, db: Database, agent_id: str) -> None:
        object.__setattr__(self, "_db", db)
        object.__setattr__(self, "_agent", agent_id)

    def _row(self) -> MemoryRow:
        with self._db.read() as conn:
            m = conn.execute(select(q).where(q.c.agent_id == self._agent)).mappings().one()
        return MemoryRow(
            state=m["state"],
            queued_at=m["queued_at"],
            available_at=m["available_at"],
            priority=m["priority"],
            attempts=m["attempts"],
            consecutive_failures=m["consecutive_failures"],
            lease_expires_at=m["lease_expires_at"],
            claim_token=m["claim_token"],
            dirty=m["dirty"],
            last_error=m["last_error"],
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self._row(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        with self._db.write() as conn:
            conn.execute(update(q).where(q.c.agent_id == self._agent).values({name: value}))


class SqlInspection:
    """The fake's seeding and inspection helpers for a SQL backend (mixed into its store class)."""

    db: Database

    def evict(self, agent_id: str, batch: Iterable[EvictedExchange], now: datetime) -> None:
        batch = list(batch)
        with self.db.write() as conn:
            exists = conn.execute(select(agents.c.id).where(agents.c.id == agent_id)).first()
            if exists is None:
                conn.execute(
                    agents.insert().values(
                        id=agent_id,
                        created_at=now,
                        preamble_tokens=0,
                        window_tokens=0,
                        next_message_seq=1,
                        last_exchange=0,
                        window_start=1,
                        current_complete=True,
                        current_tool_calls=[],
                        unsummarized=0,
                    )
                )
            for x in batch:
                seqs = [m.seq for m in x.messages]
                conn.execute(
                    messages.insert(),
                    [
                        {
                            "agent_id": agent_id,
                            "seq": m.seq,
                            "exchange_id": x.id,
                            "kind": m.kind.value,
                            "content": m.content,
                            "tool_call_id": m.tool_call_id,
                            "name": m.name,
                            "input": m.input,
                            "is_error": m.is_error,
                            "continues_exchange": False,
                            "tokens": m.tokens,
                            "created_at": m.created_at,
                            "host_id": m.host_id,
                        }
                        for m in x.messages
                    ],
                )
                conn.execute(
                    exchanges.insert().values(
                        agent_id=agent_id,
                        id=x.id,
                        first_seq=min(seqs),
                        last_seq=max(seqs),
                        message_count=len(seqs),
                        tokens=x.tokens,
                        title=f"exchange {x.id}",
                        started_at=x.started_at,
                        ended_at=x.ended_at,
                        completed=True,
                        evicted_at=now,
                        evict_reason="budget",
                    )
                )
            if batch:
                last = max(x.id for x in batch)
                top_seq = max(m.seq for x in batch for m in x.messages)
                conn.execute(
                    update(agents)
                    .where(agents.c.id == agent_id)
                    .values(
                        unsummarized=agents.c.unsummarized + len(batch),
                        unsummarized_since=func.coalesce(agents.c.unsummarized_since, now),
                        window_start=func.max(agents.c.window_start, last + 1)
                        if self.db.engine.dialect.name == "sqlite"
                        else func.greatest(agents.c.window_start, last + 1),
                        last_exchange=func.max(agents.c.last_exchange, last)
                        if self.db.engine.dialect.name == "sqlite"
                        else func.greatest(agents.c.last_exchange, last),
                        next_message_seq=top_seq + 1,
                    )
                )
            arm_queue_row(conn, agent_id, now)

    @property
    def rows(self) -> _Rows:
        return _Rows(self.db)

    @property
    def runs(self) -> list[RunRecord]:
        with self.db.read() as conn:
            found = conn.execute(select(summary_runs).order_by(summary_runs.c.id)).mappings().all()
        fields = RunRecord.__dataclass_fields__
        return [RunRecord(**{k: v for k, v in m.items() if k in fields}) for m in found]

    @property
    def alerts(self) -> list[MemoryAlert]:
        with self.db.read() as conn:
            found = conn.execute(select(alerts).order_by(alerts.c.id)).mappings().all()
        return [
            MemoryAlert(
                m["kind"], m["agent_id"], m["message"], dict(m["details"]), m["created_at"], m["resolved_at"]
            )
            for m in found
        ]

    @property
    def agents(self) -> dict[str, MemoryAgent]:
        with self.db.read() as conn:
            found = conn.execute(select(agents)).mappings().all()
        return {
            m["id"]: MemoryAgent(
                m["window_start"], m["unsummarized"], m["unsummarized_since"], m["rebuild_requested_at"]
            )
            for m in found
        }

    def folded(self, agent_id: str) -> dict[int, int | None]:
        with self.db.read() as conn:
            found = conn.execute(
                select(exchanges.c.id, exchanges.c.summarized_in_version)
                .where(exchanges.c.agent_id == agent_id)
                .order_by(exchanges.c.id)
            ).all()
        return {int(i): v for i, v in found}


def sql_backend(db: Database) -> ContractStore:
    """`db`'s own store class (SqliteStore or PostgresStore) with the inspection helpers mixed in."""
    base = type(build_sql_store(db))
    harness = type(f"Inspected{base.__name__}", (SqlInspection, base), {})
    return cast(ContractStore, harness(db))
