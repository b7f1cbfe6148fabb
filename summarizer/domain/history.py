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
