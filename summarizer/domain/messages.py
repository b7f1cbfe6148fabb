"""Value objects for messages on their way in and exchanges on their way to the summarizer."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from summarizer.domain.kinds import Kind

JSONValue = Any


@dataclass(frozen=True, slots=True)
class NewMessage:
    """One message as a host hands it over, before the store has placed it.

    `continues_exchange` marks a user-role message that belongs to the running exchange (the Anthropic
    format carries tool results in user-role messages). `where` names the input position for error reports.
    """

    kind: Kind
    content: str
    tool_call_id: str | None = None
    name: str | None = None
    input: JSONValue = None
    is_error: bool | None = None
    tokens: int | None = None
    created_at: datetime | None = None
    host_id: str | None = None
    continues_exchange: bool = False
    where: str | None = None

    @property
    def starts_exchange(self) -> bool:
        return self.kind is Kind.USER and not self.continues_exchange

    def identity(self) -> tuple[object, ...]:
        """What must match for a re-sent message with the same host id to count as the same message."""
        return (self.kind.value, self.content, self.tool_call_id, self.name, self.input, self.is_error)

    def with_host_id(self, host_id: str) -> NewMessage:
        """This message with `host_id`: `dataclasses.replace` without its field-by-field introspection,
        which was a sixth of the cost of reading an id-less message (a test keeps the two equal)."""
        return NewMessage(
            self.kind,
            self.content,
            self.tool_call_id,
            self.name,
            self.input,
            self.is_error,
            self.tokens,
            self.created_at,
            host_id,
            self.continues_exchange,
            self.where,
        )


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """A message as the store holds it."""

    seq: int
    kind: Kind
    content: str
    tokens: int
    created_at: datetime
    exchange_id: int | None
    in_window: bool
    tool_call_id: str | None = None
    name: str | None = None
    input: JSONValue = None
    is_error: bool | None = None
    host_id: str | None = None


@dataclass(frozen=True, slots=True)
class EvictedExchange:
    """An evicted exchange with its messages, as handed to the summary engine."""

    id: int
    started_at: datetime
    ended_at: datetime
    tokens: int
    messages: tuple[StoredMessage, ...] = field(default_factory=tuple)
