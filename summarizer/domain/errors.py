"""Errors raised by the domain core."""

from __future__ import annotations


class SummarizerError(Exception):
    """Base class for every error this package raises on purpose."""


class InvalidMessage(SummarizerError):
    """A message breaks a rule; `where` says which input it came from (e.g. ``chat.jsonl:12``)."""

    def __init__(self, reason: str, where: str | None = None) -> None:
        self.reason = reason
        self.where = where
        super().__init__(f"{where}: {reason}" if where else reason)


class UnknownAgent(SummarizerError):
    def __init__(self, agent_id: str) -> None:
        super().__init__(f"unknown agent {agent_id!r}")
        self.agent_id = agent_id


class ValueRefused(InvalidMessage):
    """The database refused a value of the messages being recorded (a string too long for its column, a
    number out of its range): nothing of the transaction was stored. The reason is the database's first
    line, masked, never the statement or its values."""
