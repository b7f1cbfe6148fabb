"""The rows the in-memory fake store keeps (a fake: tests only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from summarizer.domain.messages import EvictedExchange
from summarizer.engine.model import Summary
from summarizer.storage.port import DropRecord, KeptVersion, RunRecord


@dataclass(slots=True)
class MemoryAgent:
    window_start: int = 1
    unsummarized: int = 0
    unsummarized_since: datetime | None = None
    rebuild_requested_at: datetime | None = None
    instructions: str | None = None
    now_item: bool | None = None


@dataclass(slots=True)
class MemoryExchange:
    exchange: EvictedExchange
    summarized_in_version: int | None = None


@dataclass(slots=True)
class MemoryRow:
    state: str
    queued_at: datetime
    available_at: datetime
    priority: int = 0
    attempts: int = 0
    consecutive_failures: int = 0
    lease_expires_at: datetime | None = None
    claim_token: str | None = None
    dirty: bool = False
    last_error: str | None = None


@dataclass(slots=True)
class MemoryAlert:
    kind: str
    agent_id: str | None
    message: str
    details: dict[str, Any]
    raised_at: datetime
    resolved_at: datetime | None = None


@dataclass(slots=True)
class MemoryState:
    agents: dict[str, MemoryAgent] = field(default_factory=dict)
    exchanges: dict[str, list[MemoryExchange]] = field(default_factory=dict)
    rows: dict[str, MemoryRow] = field(default_factory=dict)
    summaries: dict[str, Summary] = field(default_factory=dict)
    runs: list[RunRecord] = field(default_factory=list)
    alerts: list[MemoryAlert] = field(default_factory=list)
    versions: dict[str, dict[int, KeptVersion]] = field(default_factory=dict)
    drops: dict[str, list[DropRecord]] = field(default_factory=dict)
