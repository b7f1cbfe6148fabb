"""Builders for engine tests: items, exchanges and a fixed clock."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import EvictedExchange, StoredMessage
from summarizer.engine.model import Importance, SummaryItem, Tier

NOW = datetime(2025, 3, 12, 15, 0, tzinfo=UTC)  # a Wednesday


def item(
    exchange_ids: Sequence[int] = (1,),
    *,
    tier: Tier = Tier.SESSION,
    text: str = "Implemented the thing.",
    ended_ago: timedelta = timedelta(minutes=45),
    span: timedelta = timedelta(minutes=5),
    tokens: int = 1000,
    importance: Importance = Importance.MEDIUM,
    item_id: str | None = None,
) -> SummaryItem:
    ended = NOW - ended_ago
    ids = tuple(exchange_ids)
    default_id = f"x{ids[0]}" if len(ids) == 1 else f"x{ids[0]}-{ids[-1]}"
    return SummaryItem(
        id=item_id or default_id,
        tier=tier,
        text=text,
        started_at=ended - span,
        ended_at=ended,
        source_tokens=tokens,
        importance=importance,
        exchange_ids=ids,
    )


def message(
    seq: int, kind: Kind, content: str, at: datetime, exchange_id: int, **extra: object
) -> StoredMessage:
    return StoredMessage(
        seq=seq,
        kind=kind,
        content=content,
        tokens=max(1, len(content) // 4),
        created_at=at,
        exchange_id=exchange_id,
        in_window=False,
        **extra,  # type: ignore[arg-type]
    )


def exchange(
    exchange_id: int,
    *,
    ended_ago: timedelta = timedelta(minutes=30),
    user: str = "Please add JWT authentication to the API.",
    assistant: str = "Added JWT authentication with RS256 signing and a 15 minute expiry.",
    tokens: int = 3000,
    extra: Sequence[StoredMessage] = (),
) -> EvictedExchange:
    ended = NOW - ended_ago
    started = ended - timedelta(minutes=5)
    messages = (
        message(1, Kind.USER, user, started, exchange_id),
        *extra,
        message(99, Kind.ASSISTANT, assistant, ended, exchange_id),
    )
    return EvictedExchange(
        id=exchange_id, started_at=started, ended_at=ended, tokens=tokens, messages=messages
    )


def add_op(
    exchange_ids: Sequence[int], text: str = "Added JWT auth.", importance: str = "high"
) -> dict[str, object]:
    return {"exchange_ids": list(exchange_ids), "text": text, "importance": importance}
