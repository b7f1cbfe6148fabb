"""Wiring for the log followers: `summarizer watch` and the coding-agent hooks."""

from __future__ import annotations

from summarizer.composition.database import build_store
from summarizer.composition.workers import build_wakeup
from summarizer.service.follow import Follower
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.writers.followed import SqlFollowStore


def build_follower(
    settings: Settings, db: Database, *, fmt: str = "auto", agent: str | None = None, per: str = "session"
) -> Follower:
    """A follower recording into `db` with the configured window; with a broker, each armed queue row wakes
    a worker at once."""
    return Follower(
        SqlFollowStore(build_store(settings, db)),
        max_bytes=settings.max_message_bytes,
        max_document_bytes=settings.follow_max_document_bytes,
        fmt=fmt,
        agent=agent,
        per=per,
        on_queued=build_wakeup(settings) if settings.broker_url else None,
    )
