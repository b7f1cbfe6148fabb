"""The PostgreSQL backend of the storage port: the update's hot path as one statement per step.

The claim is a data-modifying CTE joined to the claimed agent and its summary, so the claim brings the
agent's state along; the batch read and the commit (storage/postgres/commit.py) are one statement each.
All three run through `PostgresDatabase.run_hot` (psycopg alone, see driver_statements.py): an update
costs three round trips.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select

from summarizer.storage.postgres.commit import commit_in_one_statement
from summarizer.storage.postgres.database import PostgresDatabase
from summarizer.storage.sql.readers.batch_reads import (
    EVICTED_BATCH,
    STATE_COLUMNS,
    agent_state_from_row,
    batch_from_rows,
    batch_params,
)
from summarizer.storage.sql.statements.driver_statements import DriverStatement
from summarizer.storage.sql.statements.schema import agents, summaries
from summarizer.storage.sql.stores.store import SqlStore
from summarizer.storage.sql.writers import queue
from summarizer.storage.values import AgentState, Claim, Committed, EvictedBatch, UpdateCommit


def _claim_and_read_statement(one_agent: bool) -> Any:
    claimed = queue.CLAIMS[one_agent].cte("claimed")
    return select(claimed, *STATE_COLUMNS).select_from(
        claimed.join(agents, agents.c.id == claimed.c.agent_id).outerjoin(
            summaries, summaries.c.agent_id == claimed.c.agent_id
        )
    )


CLAIM_AND_READ = {
    one_agent: DriverStatement(_claim_and_read_statement(one_agent)) for one_agent in (True, False)
}
EVICTED_BATCH_HOT = DriverStatement(EVICTED_BATCH)


class PostgresStore(SqlStore[PostgresDatabase]):
    def claim(
        self, now: datetime, lease_seconds: float, agent_id: str | None
    ) -> tuple[Claim, AgentState | None] | None:
        request = queue.ClaimRequest.make(now, lease_seconds, agent_id)
        rows = self.db.run_hot(CLAIM_AND_READ[agent_id is not None], request.params)
        if not rows:
            return None
        claim = request.claim_from(rows[0])
        return claim, agent_state_from_row(claim.agent_id, rows[0])

    def read_batch(
        self, agent_id: str, *, after: int, before: int, max_exchanges: int, max_tokens: int
    ) -> EvictedBatch:
        params = batch_params(
            agent_id, after=after, before=before, max_exchanges=max_exchanges, max_tokens=max_tokens
        )
        return batch_from_rows(self.db.run_hot(EVICTED_BATCH_HOT, params))

    def commit(self, commit: UpdateCommit) -> Committed:
        return commit_in_one_statement(self.db, commit)
