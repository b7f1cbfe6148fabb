"""The SQLite backend of the storage port: the update's hot path as plain statements in transactions.

SQLite serializes writers (``BEGIN IMMEDIATE``) and has no network round trips to save, so the claim and
the read of the agent's state share one write transaction, the batch is one read, and the commit runs
its steps one after another (update_commit.commit_in_steps), checking each guard as it goes.
"""

from __future__ import annotations

from datetime import datetime

from summarizer.storage.sql.readers.batch_reads import (
    EVICTED_BATCH,
    batch_from_rows,
    batch_params,
    read_agent_state,
)
from summarizer.storage.sql.stores.store import SqlStore
from summarizer.storage.sql.writers import queue
from summarizer.storage.sql.writers.update_commit import commit_in_steps, write_alerts
from summarizer.storage.sqlite.database import SqliteDatabase
from summarizer.storage.values import AgentState, Claim, Committed, EvictedBatch, UpdateCommit


class SqliteStore(SqlStore[SqliteDatabase]):
    def claim(
        self, now: datetime, lease_seconds: float, agent_id: str | None
    ) -> tuple[Claim, AgentState | None] | None:
        with self.db.write() as conn:
            claim = queue.claim(conn, now, lease_seconds, agent_id)
            return None if claim is None else (claim, read_agent_state(conn, claim.agent_id))

    def read_batch(
        self, agent_id: str, *, after: int, before: int, max_exchanges: int, max_tokens: int
    ) -> EvictedBatch:
        params = batch_params(
            agent_id, after=after, before=before, max_exchanges=max_exchanges, max_tokens=max_tokens
        )
        with self.db.read() as conn:
            return batch_from_rows(conn.execute(EVICTED_BATCH, params).all())

    def commit(self, commit: UpdateCommit) -> Committed:
        with self.db.write() as conn:
            state = commit_in_steps(conn, commit)
            return Committed(state, write_alerts(conn, commit))
