"""How a worker lets go of its claimed queue row, stated once.

Each way of ending a claim other than completing it sets these columns of the row, besides clearing the
lease, the claim token and the dirty flag: the SQL writer (writers/queue.py) binds them into its guarded
UPDATE, and the in-memory fake (testing/memory_store.py) sets them on its row, so the two cannot drift.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from summarizer.domain.queue_states import FAILED, PENDING


def released(now: datetime, reason: str | None) -> dict[str, Any]:
    """A stale result given back: pending and due at once; not a failure."""
    return {"state": PENDING, "available_at": now, "last_error": reason}


def retried(available_at: datetime, priority: int, failures: int, error: str) -> dict[str, Any]:
    """A failure to retry: pending again at `available_at`, with `priority` and the failures so far."""
    return {
        "state": PENDING,
        "available_at": available_at,
        "priority": priority,
        "consecutive_failures": failures,
        "last_error": error,
    }


def parked(failures: int, error: str) -> dict[str, Any]:
    """A failure not to retry: the row stays failed (new evictions do not wake it) until a requeue."""
    return {"state": FAILED, "consecutive_failures": failures, "last_error": error}
