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
