"""One agent as `summarizer agents` lists it: where it came from, how much it holds, how it is doing.

Plain data crossing the storage port (`ops_port.FleetReader.agent_page`); the SQL that reads a page is in
`storage/sql/readers/agent_list.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

AgentOrder = Literal["activity", "id"]
"""activity: the most recently active first (ties: the greater id first); id: ids in ascending order."""
AGENT_ORDERS: tuple[AgentOrder, ...] = ("activity", "id")
PARKED = "failed"
"""The queue state of an agent whose updates stopped after failures (re-armed by `summarizer requeue`)."""


@dataclass(frozen=True, slots=True)
class AgentListing:
    agent_id: str
    source: str | None
    """watch | ingest | hook | cli | api (None: created before the source was recorded)."""
    source_path: str | None
    source_format: str | None
    messages: int
    exchanges: int
    window_tokens: int
    summary_version: int | None
    summary_tokens: int | None
    created_at: datetime
    last_message_at: datetime | None
    last_activity_at: datetime
    """The newest message's time, else when the agent was created: what `activity` order sorts by."""
    queue_state: str | None
    open_alerts: int

    @property
    def parked(self) -> bool:
        return self.queue_state == PARKED

    def to_json(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "source": {"kind": self.source, "path": self.source_path, "format": self.source_format},
            "messages": self.messages,
            "exchanges": self.exchanges,
            "window_tokens": self.window_tokens,
            "summary_version": self.summary_version,
            "summary_tokens": self.summary_tokens,
            "created_at": self.created_at.isoformat(),
            "last_message_at": self.last_message_at.isoformat() if self.last_message_at else None,
            "last_activity_at": self.last_activity_at.isoformat(),
            "queue_state": self.queue_state,
            "parked": self.parked,
            "open_alerts": self.open_alerts,
        }
