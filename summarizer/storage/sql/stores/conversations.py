"""The conversation store (`ConversationStorePort` over SQL): records messages, keeps each agent's sliding
window, records evictions, and serves the plain reads beside them.

A batch is one transaction: the messages, their exchanges, the evictions they cause and the agents' queue
rows commit together or not at all (a transactional outbox: the queue row is the eviction event). The
work per message is constant: the agent row carries running totals, evictions are range updates over the
oldest exchanges, nothing rescans the history, and a batch of many agents costs the same statements as a
batch of one (storage/sql/writers/recording.py).

Tokens are counted first, outside the transaction, then the batch is recorded: a counter that calls an API
(SUMMARIZER_TOKEN_COUNTER=anthropic) never holds the write lock while it waits. Messages whose host id is
already stored are looked up first (a plain read) and not counted at all.

The reads are the lock-free SELECTs of readers/reading.py, each in its own read transaction. Built once,
in the composition root.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, select, text, update

from summarizer.domain.agent_ids import check_agent_id
from summarizer.domain.clock import Clock, utcnow
from summarizer.domain.credentials import mask_message
from summarizer.domain.errors import SummarizerError, UnknownAgent
from summarizer.domain.history import HistoryPage, HistoryView
from summarizer.domain.identifiers import fit_identifiers
from summarizer.domain.messages import NewMessage, StoredMessage
from summarizer.domain.tokens import ByteEstimateCounter, TokenCounter, message_tokens
from summarizer.engine.model import Summary
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers import reading
from summarizer.storage.sql.readers.costs import copy_cost_budget
from summarizer.storage.sql.statements.refused import values_checked
from summarizer.storage.sql.statements.schema import agents
from summarizer.storage.sql.writers.recording import (
    Counted,
    Recording,
    insert_agents,
    record_batches,
    stored_identities,
)
from summarizer.storage.sql.writers.steering import copy_instructions
from summarizer.storage.values import AgentIngest, IngestReport

__all__ = ["AgentIngest", "ConversationStore", "IngestReport", "StoreConfig"]


@dataclass(frozen=True, slots=True)
class StoreConfig:
    window_tokens: int = 100_000
    batch_size: int = 3
    counter: TokenCounter | None = None
    provider: str = ""
    model: str = ""
    mask_credentials: bool = True
    """Mask credentials in message text and tool input before anything is counted or stored
    (`SUMMARIZER_KEEP_RAW_CREDENTIALS` turns it off)."""


class ConversationStore:
    def __init__(self, db: Database, config: StoreConfig | None = None, clock: Clock = utcnow) -> None:
        self.db = db
        self.config = config or StoreConfig()
        self._counter: TokenCounter = self.config.counter or ByteEstimateCounter()
        self._clock = clock
        self._recording = Recording(
            window_tokens=self.config.window_tokens,
            batch_size=self.config.batch_size,
            counter=self._counter,
            provider=self.config.provider,
            model=self.config.model,
        )

    # ----- agents -------------------------------------------------------------------------------------

    def create_agent(self, agent_id: str, *, budget: int | None = None, parent: str | None = None) -> None:
        """Create an agent (a no-op if it exists). A forked agent inherits its parent's budget override,
        summary instructions and "Now" choice."""
        check_agent_id(agent_id)
        if budget is not None and budget < 0:
            raise SummarizerError(f"budget must be >= 0, got {budget}")
        with self.db.write() as conn:
            if parent is not None:
                parent_row = conn.execute(select(agents.c.window_budget).where(agents.c.id == parent)).first()
                if parent_row is None:
                    raise UnknownAgent(parent)
                if budget is None:
                    budget = parent_row.window_budget
            fresh = conn.execute(select(agents.c.id).where(agents.c.id == agent_id)).first() is None
            insert_agents(conn, [agent_id], self._clock(), budget=budget, parent=parent)
            if parent is not None and fresh:
                copy_instructions(conn, parent, agent_id)
                copy_cost_budget(conn, parent, agent_id)

    def set_budget(self, agent_id: str, budget: int | None) -> None:
        """Override (or with None, reset) one agent's window budget; applies from its next message."""
        if budget is not None and budget < 0:
            raise SummarizerError(f"budget must be >= 0, got {budget}")
        with self.db.write() as conn:
            result = conn.execute(update(agents).where(agents.c.id == agent_id).values(window_budget=budget))
            if result.rowcount == 0:
                raise UnknownAgent(agent_id)

    # ----- recording ----------------------------------------------------------------------------------

    def record(self, agent_id: str, batch: Sequence[NewMessage]) -> IngestReport:
        """Record messages for one agent, all or nothing."""
        return self.record_many((agent_id, m) for m in batch)

    def record_many(self, records: Iterable[tuple[str, NewMessage]]) -> IngestReport:
        """Record messages for any number of agents in ONE transaction: a bad message stores nothing.

        Counting comes first, with no transaction open; only then is the write transaction begun.
        """
        batches = group_by_agent(self._masked(records))
        skip: set[tuple[str, str]] = set()
        if not isinstance(self._counter, ByteEstimateCounter) and _has_host_ids(batches):
            with self.db.read() as conn:  # a re-sent message is not counted again
                skip = set(stored_identities(conn, batches))
        counted = self._count(batches, skip)
        with values_checked(), self.db.write() as conn:
            return record_batches(conn, counted, self._recording, self._clock())

    def record_in(
        self, conn: Connection, records: Iterable[tuple[str, NewMessage]], *, keep_first: bool = False
    ) -> IngestReport:
        """Record inside the CALLER's open transaction: it commits or rolls back with the caller's own writes.

        For hosts that share the database and want their own message row and ours to be one commit. The
        caller owns the transaction and, after commit, any worker wake-up (`IngestReport.queued_agents`).
        Counting happens inside that transaction here: with a counter that calls an API, count first
        (`count`) and hand over messages that carry their `tokens`. With `keep_first`, a message whose id
        is stored with other content is left out (the first content stays) instead of refusing the batch.
        """
        counted = self._count(group_by_agent(self._masked(records)), set())
        with values_checked():  # the caller's transaction is to be rolled back
            return record_batches(conn, counted, self._recording, self._clock(), keep_first=keep_first)

    def count(self, message: NewMessage) -> int:
        """A message's token cost as this store counts it (of its text as it will be stored)."""
        message = mask_message(message, configured_only=not self.config.mask_credentials)
        return message_tokens(message, self._counter, self.config.provider, self.config.model)

    # ----- reads (no locks, never waiting for a writer) ----------------------------------------------

    def agent_exists(self, agent_id: str) -> bool:
        with self.db.read() as conn:
            return reading.agent_exists(conn, agent_id)

    def window_messages(self, agent_id: str) -> list[StoredMessage] | None:
        with self.db.read() as conn:
            return reading.window_of(conn, agent_id)

    def load_summary(self, agent_id: str) -> Summary | None:
        with self.db.read() as conn:
            return reading.load_summary(conn, agent_id)

    def history(self, agent_id: str, default_budget: int) -> HistoryView | None:
        with self.db.read() as conn:
            return reading.load_history(conn, agent_id, default_budget)

    def history_page(self, agent_id: str, budget: int, limit: int, before: int | None) -> HistoryPage | None:
        with self.db.read() as conn:
            return reading.load_history_page(conn, agent_id, budget, limit, before)

    def exchange_messages(self, agent_id: str, exchange_id: int) -> list[StoredMessage] | None:
        with self.db.read() as conn:
            if not reading.agent_exists(conn, agent_id):
                return None
            return reading.load_exchange_messages(conn, agent_id, exchange_id)

    def unsummarized(self, agent_id: str) -> int:
        with self.db.read() as conn:
            value = conn.execute(select(agents.c.unsummarized).where(agents.c.id == agent_id)).scalar()
        return int(value or 0)

    def ping(self) -> None:
        with self.db.read() as conn:
            conn.execute(text("SELECT 1"))

    def _masked(self, records: Iterable[tuple[str, NewMessage]]) -> Iterable[tuple[str, NewMessage]]:
        """The records as they will be stored: identifiers fitted to their columns (`fit_identifiers`) and
        credentials masked unless raw content is kept. Every recording path (`record`, `record_many`,
        `record_in`, hence the API, ingest, hooks and `watch`) passes here before anything is counted,
        compared with a stored message or written."""
        fitted = ((agent_id, fit_identifiers(message)) for agent_id, message in records)
        only = not self.config.mask_credentials  # the server's own configured secrets are masked even then
        return ((agent_id, mask_message(message, configured_only=only)) for agent_id, message in fitted)

    def _count_one(self, message: NewMessage) -> int:
        return message_tokens(message, self._counter, self.config.provider, self.config.model)

    def _count(self, batches: dict[str, list[NewMessage]], skip: set[tuple[str, str]]) -> dict[str, Counted]:
        return {
            agent_id: [
                (m, None if m.host_id is not None and (agent_id, m.host_id) in skip else self._count_one(m))
                for m in batch
            ]
            for agent_id, batch in batches.items()
        }


def group_by_agent(records: Iterable[tuple[str, NewMessage]]) -> dict[str, list[NewMessage]]:
    """Each agent's messages in order, agents in order of first appearance; agent ids checked."""
    batches: dict[str, list[NewMessage]] = defaultdict(list)
    for agent_id, message in records:
        batches[agent_id].append(message)
    for agent_id, batch in batches.items():
        check_agent_id(agent_id, batch[0].where)
    return dict(batches)


def _has_host_ids(batches: dict[str, list[NewMessage]]) -> bool:
    return any(m.host_id is not None for batch in batches.values() for m in batch)
