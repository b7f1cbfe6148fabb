"""Exactly one beat: a guard taken when beat starts, held for its lifetime, released by its death.

On PostgreSQL it is a session advisory lock on a dedicated connection: if the beat process dies, its
connection closes and the lock is free at once, with no TTL to tune. With the embedded SQLite database
it is an exclusive `flock` on a file in the data directory (the embedded mode is one host by design).
A second beat that cannot take the guard logs a critical line and exits with status 3.
"""

from __future__ import annotations

import os
from typing import Any

import structlog
from celery.signals import beat_embedded_init, beat_init

from summarizer.settings import Settings, load_settings

log = structlog.get_logger("workers.beat")

ADVISORY_LOCK_KEY = 0x53554D42  # "SUMB"
EXIT_BEAT_TAKEN = 3
_held: list[Any] = []  # keeps the lock's connection or file open for the life of the process


class BeatAlreadyRunning(RuntimeError):
    pass


def acquire_beat_guard(settings: Settings) -> Any:
    """Take the single-beat guard or raise BeatAlreadyRunning; the returned handle must be kept alive."""
    if settings.embedded_database:
        import fcntl

        settings.data_dir.mkdir(parents=True, exist_ok=True)
        handle = open(settings.data_dir / "beat.lock", "w")  # noqa: SIM115  (held for the process lifetime)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise BeatAlreadyRunning(f"another beat holds {settings.data_dir / 'beat.lock'}") from None
        return handle
    import psycopg

    from summarizer.composition import build_database

    url = build_database(settings).url.set(drivername="postgresql").render_as_string(hide_password=False)
    conn = psycopg.connect(url, autocommit=True)
    row = conn.execute("SELECT pg_try_advisory_lock(%s)", (ADVISORY_LOCK_KEY,)).fetchone()
    if not row or not row[0]:
        conn.close()
        raise BeatAlreadyRunning("another beat holds the PostgreSQL advisory lock")
    return conn


def _guard(**_: Any) -> None:
    if _held:  # an embedded beat sends both beat_embedded_init and beat_init
        return
    settings = load_settings()
    try:
        _held.append(acquire_beat_guard(settings))
    except BeatAlreadyRunning as exc:
        log.critical("beat.refused", reason=str(exc))
        os._exit(EXIT_BEAT_TAKEN)  # leave at once: a second scheduler would double every periodic task
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    log.info("beat.guard_taken")


beat_init.connect(_guard, weak=False)
beat_embedded_init.connect(_guard, weak=False)
