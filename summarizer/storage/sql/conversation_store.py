"""The SQL backend of `ConversationStorePort`: the conversation store's writes, the plain reads beside them.

Recording is `ConversationStore`'s (one transaction per batch, see `conversations.py`); the reads are the
lock-free SELECTs of `reading.py`. Built once, in the composition root.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import Connection, select, text

from summarizer.domain.history import HistoryPage, HistoryView
from summarizer.domain.messages import NewMessage, StoredMessage
from summarizer.engine.model import Summary
from summarizer.storage.sql import reading
from summarizer.storage.sql.conversations import ConversationStore, IngestReport
from summarizer.storage.sql.schema import agents


class SqlConversationStore:
    """`ConversationStorePort` over a `ConversationStore` and its database."""

    def __init__(self, store: ConversationStore) -> None:
        self.store = store
        self.db = store.db

    # ----- recording (the conversation store's transactions) ------------------------------------------
    def record(self, agent_id: str, batch: Sequence[NewMessage]) -> IngestReport:
        return self.store.record(agent_id, batch)

    def record_many(self, records: Iterable[tuple[str, NewMessage]]) -> IngestReport:
        return self.store.record_many(records)

    def record_in(self, conn: Connection, records: Iterable[tuple[str, NewMessage]]) -> IngestReport:
        return self.store.record_in(conn, records)

    def create_agent(self, agent_id: str, *, budget: int | None = None, parent: str | None = None) -> None:
        self.store.create_agent(agent_id, budget=budget, parent=parent)

    def set_budget(self, agent_id: str, budget: int | None) -> None:
        self.store.set_budget(agent_id, budget)

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
