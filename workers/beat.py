"""Exactly one beat: a guard taken when beat starts, held for its lifetime, released by its death.

On PostgreSQL it is a session advisory lock on a dedicated connection: if the beat process dies, its
connection closes and the lock is free at once, with no TTL to tune. With the embedded SQLite database
it is an exclusive `flock` on a file in the data directory (the embedded mode is one host by design).
A second beat that cannot take the guard logs a critical line and exits with status 3.

A session can end under a live beat (a database restart, a proxy or `idle_session_timeout` closing it),
and its lock with it, which would let a second beat in unnoticed. So the beat checks its session every
GUARD_CHECK_SECONDS (the check also keeps the session from looking idle): a dead one is replaced and the
lock taken again; if another beat got the lock meanwhile, this one logs `beat.guard_lost` and exits with
status 3. Two beats can thus overlap for at most one check interval, and only after the session was lost.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import structlog
from celery.signals import beat_embedded_init, beat_init

from summarizer.settings import Settings, load_settings

log = structlog.get_logger("workers.beat")

ADVISORY_LOCK_KEY = 0x53554D42  # "SUMB"
EXIT_BEAT_TAKEN = 3
GUARD_CHECK_SECONDS = 5.0
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


def check_beat_guard(settings: Settings, handle: Any) -> Any:
    """The guard's handle after making sure it still holds the lock: `handle` itself, or a new session that
    took the lock again. Raises BeatAlreadyRunning if another beat holds it now; other errors (the database
    unreachable) propagate, and the caller keeps `handle` and checks again later."""
    if settings.embedded_database:
        return handle  # a flock lives as long as the process
    import psycopg

    try:
        handle.execute("SELECT 1")
        return handle
    except psycopg.Error as exc:
        log.warning("beat.guard_session_lost", error=str(exc))
    handle.close()
    fresh = acquire_beat_guard(settings)
    log.warning("beat.guard_taken_again")
    return fresh


def _watch_guard(settings: Settings) -> None:
    while True:
        time.sleep(GUARD_CHECK_SECONDS)  # the check's period, not a wait for something to happen
        try:
            _held[0] = check_beat_guard(settings, _held[0])
        except BeatAlreadyRunning as exc:
            log.critical("beat.guard_lost", reason=str(exc))
            os._exit(EXIT_BEAT_TAKEN)  # another beat runs now: this one must not schedule anything more
        except Exception as exc:  # the database is unreachable: no beat can take the lock meanwhile
            log.error("beat.guard_unchecked", error=str(exc))


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
    if not settings.embedded_database:
        threading.Thread(target=_watch_guard, args=(settings,), name="beat-guard", daemon=True).start()


beat_init.connect(_guard, weak=False)
beat_embedded_init.connect(_guard, weak=False)
