"""Column types that behave the same on PostgreSQL and SQLite."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, DateTime, Dialect, Integer, Text, TypeDecorator
from sqlalchemy.dialects.postgresql import JSONB

from summarizer.domain import credentials  # noqa: F401 - registers the conversation rules in redact
from summarizer.domain.secrets import redact, redact_json

Json = JSON().with_variant(JSONB(), "postgresql")
OptionalJson = JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")
"""`Json` where Python None is SQL NULL, not the JSON text `null` (a message without a tool input: the
search document would otherwise hold the word "null" for every such message)."""
BigId = BigInteger().with_variant(Integer(), "sqlite")


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes in and out; SQLite would otherwise hand back naive values."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r} given to a UTC column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def bind_processor(self, dialect: Dialect) -> Callable[[datetime | None], Any] | None:
        """On SQLite, the text SQLAlchemy's DATETIME stores (`YYYY-MM-DD HH:MM:SS.ffffff`, naive UTC) made
        in one call: its generic processor costs about twice as much, and recording binds several
        timestamps per message (tests/unit/storage/test_utc_datetime.py checks they agree)."""
        if dialect.name != "sqlite":
            return super().bind_processor(dialect)

        def process(value: datetime | None) -> str | None:
            if value is None:
                return None
            if value.tzinfo is None:
                raise ValueError(f"naive datetime {value!r} given to a UTC column")
            return value.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")

        return process

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):
            value = datetime.fromisoformat(value)
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class RedactedText(TypeDecorator[str]):
    """Text that may quote an outside party (a provider's error, an alert about it): every registered
    secret and known credential shape is masked on the way in, whichever statement writes it."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return None if value is None else redact(value)


class RedactedJson(TypeDecorator[Any]):
    """`Json` whose strings are masked like `RedactedText` on the way in (an alert's details)."""

    impl = JSON
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> Any:
        return dialect.type_descriptor(JSONB() if dialect.name == "postgresql" else JSON())

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        return None if value is None else redact_json(value)
