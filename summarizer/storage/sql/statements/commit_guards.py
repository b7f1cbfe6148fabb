"""The guards of an update's commit, stated once.

Each backend checks the same three guards in the same order; a failed one rolls the whole commit back and
surfaces as the same exception: the SQLite backend checks them step by step, the PostgreSQL statement
derives its CASE of `summarizer_abort(reason)` calls from `GUARDS` (migration 0002 raises SQLSTATE P0001
with the message `summarizer guard: <reason>`), and the in-memory fake checks them in Python.
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy.exc import DBAPIError

from summarizer.storage.values import LostClaim, StaleSummary

LOST = "claim_taken_over"
"""The queue row is no longer held by our claim token (the lease expired and another worker took it)."""
STALE = "summary_version_moved"
"""The stored summary is no longer at the version the update started from."""
FOLDED = "exchanges_folded_already"
"""Not every exchange of the batch was still unsummarized."""

GUARDS = (LOST, STALE, FOLDED)
"""In the order they are checked."""

ABORT_SQLSTATE = "P0001"
ABORT_PREFIX = "summarizer guard: "


class _Claimed(Protocol):
    @property
    def agent_id(self) -> str: ...


class GuardedCommit(Protocol):
    """What a failed guard's message names (an `UpdateCommit` has it)."""

    @property
    def claim(self) -> _Claimed: ...
    @property
    def from_version(self) -> int: ...
    @property
    def first_exchange_id(self) -> int: ...
    @property
    def last_exchange_id(self) -> int: ...


def guard_error(reason: str, commit: GuardedCommit) -> LostClaim | StaleSummary:
    """The exception a failed guard raises, the same from every backend."""
    claim = commit.claim
    if reason == LOST:
        return LostClaim(f"claim on {claim.agent_id!r} was taken over")
    return StaleSummary(
        f"summary of {claim.agent_id!r} at version {commit.from_version},"
        f" exchanges {commit.first_exchange_id}..{commit.last_exchange_id}: {reason}"
    )


def abort_reason(exc: DBAPIError) -> str | None:
    """The failed guard when `exc` is `summarizer_abort`'s exception (by SQLSTATE and reason), else None."""
    if getattr(exc.orig, "sqlstate", None) != ABORT_SQLSTATE:
        return None
    diag = getattr(exc.orig, "diag", None)
    message = getattr(diag, "message_primary", None) or ""
    reason = message.removeprefix(ABORT_PREFIX)
    return reason if message.startswith(ABORT_PREFIX) and reason in GUARDS else None
