"""The single-beat guard on PostgreSQL: a session advisory lock on a dedicated connection. If the beat
process dies, its connection closes and the lock is free at once, with no TTL to tune. A session can also
end under a live beat (a database restart, a proxy or `idle_session_timeout` closing it), and its lock
with it: `lost` tells the beat so when it checks (workers/beat.py), and the beat takes the lock again.
psycopg is imported only when a guard is taken or checked."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from sqlalchemy import URL

from summarizer.storage.sql.backend import BeatAlreadyRunning, GuardHandle

ADVISORY_LOCK_KEY = 0x53554D42  # "SUMB"


@dataclass(frozen=True, slots=True)
class AdvisoryLockGuard:
    url: URL

    @property
    def watched(self) -> bool:
        return True

    def take(self) -> GuardHandle:
        import psycopg

        url = self.url.set(drivername="postgresql").render_as_string(hide_password=False)
        conn = psycopg.connect(url, autocommit=True)
        row = conn.execute("SELECT pg_try_advisory_lock(%s)", (ADVISORY_LOCK_KEY,)).fetchone()
        if not row or not row[0]:
            conn.close()
            raise BeatAlreadyRunning("another beat holds the PostgreSQL advisory lock")
        return conn

    def lost(self, handle: GuardHandle) -> str | None:
        """The check also keeps the session from looking idle."""
        import psycopg

        try:
            cast("psycopg.Connection[Any]", handle).execute("SELECT 1")
        except psycopg.Error as exc:
            return str(exc)
        return None

    def unreachable(self, exc: Exception) -> bool:
        import psycopg

        return isinstance(exc, psycopg.OperationalError)


def beat_guard(url: URL, data_dir: Path, *, embedded: bool) -> AdvisoryLockGuard:
    """The lock is the database's own: the data directory plays no part."""
    return AdvisoryLockGuard(url)
