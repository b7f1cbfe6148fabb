"""The composition root: the one place that turns Settings into wired objects."""

from __future__ import annotations

from datetime import datetime

from summarizer.api import Summarizer
from summarizer.domain.tokens import ByteEstimateCounter, TokenCounter
from summarizer.settings import Settings
from summarizer.storage.conversations import ConversationStore, StoreConfig
from summarizer.storage.database import Database
from summarizer.storage.reading import SummaryRecord


def build_database(settings: Settings) -> Database:
    return Database(settings.resolved_database_url())


def build_token_counter(settings: Settings) -> TokenCounter:
    return ByteEstimateCounter()


def build_store(settings: Settings, db: Database) -> ConversationStore:
    config = StoreConfig(
        window_tokens=settings.window_tokens,
        batch_size=settings.batch_size,
        counter=build_token_counter(settings),
        provider=settings.token_provider,
        model=settings.model,
    )
    return ConversationStore(db, config)


def render_summary(record: SummaryRecord, now: datetime) -> str:
    lines = [f"- {item.get('text', '')}" for item in record.items]
    return "\n".join(lines)


def build_summarizer(settings: Settings, db: Database | None = None) -> Summarizer:
    db = db or build_database(settings)
    return Summarizer(
        db, build_store(settings, db), default_budget=settings.window_tokens, render_summary=render_summary
    )
