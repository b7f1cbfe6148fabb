"""An agent's sliding window as hosts and operators read it: its exchanges, evicted or in the window."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class ExchangeView:
    id: int
    state: str  # "window" | "evicted"
    evict_reason: str | None
    tokens: int
    message_count: int
    started_at: datetime
    ended_at: datetime
    evicted_at: datetime | None
    title: str
    completed: bool


@dataclass(frozen=True, slots=True)
class HistoryView:
    agent_id: str
    budget_tokens: int
    window_tokens: int
    preamble_tokens: int
    exchanges: tuple[ExchangeView, ...]


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """One page of an agent's history: `view` holds only the page's exchanges (the newest `limit` of
    those before an id, oldest first), with the agent's window totals."""

    view: HistoryView
    total_exchanges: int
    """How many exchanges the agent has in all."""
    more_before: int | None
    """The `before` of the page of older exchanges (its first id); None when there are none."""
