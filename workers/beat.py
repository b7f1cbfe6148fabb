"""Exactly one beat: a guard taken when beat starts, held for its lifetime, released by its death.

The guard is the database backend's (`BeatGuard`, storage/sql/backend.py; the composition root picks
it): on PostgreSQL a session advisory lock on a dedicated connection (storage/postgres/beat_guard.py),
freed at once when the beat's connection closes, with no TTL to tune; with SQLite (the embedded
database, or an explicit `sqlite:` URL) an exclusive `flock` on `beat.lock` in the data directory, or
beside the explicit database file (storage/sqlite/beat_guard.py), which the kernel drops when the holder
dies, however it dies. A second beat that cannot take the guard logs a critical line and exits with
status 3.

A beat started by a worker as its supervised child (`workers.beat_supervisor`) finds the worker's pid in
SUMMARIZER_BEAT_PARENT_PID: it binds its life to the worker (`workers.parent_death`) before it takes the
guard, and a refusal is logged as `beat.standby` (the worker tries again later) rather than critical.
`GuardedScheduler` takes the guard before Celery opens the schedule file, so a refused beat never touches
the running beat's file; a beat run without it takes the guard on `beat_init`.

A session can end under a live beat (a database restart, a proxy or `idle_session_timeout` closing it),
and its lock with it, which would let a second beat in unnoticed. So the beat checks a guard that can be
lost (`BeatGuard.watched`) every GUARD_CHECK_SECONDS (the check also keeps the session from looking idle):
a dead one is replaced and the lock taken again; if another beat got the lock meanwhile, this one logs
`beat.guard_lost` and exits with status 3. Two beats can thus overlap for at most one check interval, and
only after the session was lost.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import structlog
from celery.beat import PersistentScheduler
from celery.signals import beat_embedded_init, beat_init

from summarizer.composition.database import beat_guard, retry_while_unreachable
from summarizer.settings import Settings
from summarizer.storage.sql.backend import BeatAlreadyRunning as BeatAlreadyRunning
from summarizer.storage.sql.backend import GuardHandle
from workers import process_settings
from workers.parent_death import bind_to_parent

log = structlog.get_logger("workers.beat")

EXIT_BEAT_TAKEN = 3
GUARD_CHECK_SECONDS = 5.0
PARENT_PID_ENV = "SUMMARIZER_BEAT_PARENT_PID"
_held: list[GuardHandle] = []  # keeps the lock's connection or file open for the life of the process


def acquire_beat_guard(settings: Settings) -> GuardHandle:
    """Take the single-beat guard or raise BeatAlreadyRunning; the returned handle must be kept alive."""
    return beat_guard(settings).take()


def guard_is_free(settings: Settings) -> bool:
    """Whether a beat starting now would get the guard: taken and let go at once (for the moment of one
    round trip a beat starting elsewhere would be refused). Errors (the database unreachable) propagate."""
    try:
        acquire_beat_guard(settings).close()
    except BeatAlreadyRunning:
        return False
    return True


def check_beat_guard(settings: Settings, handle: GuardHandle) -> GuardHandle:
    """The guard's handle after making sure it still holds the lock: `handle` itself, or a new session that
    took the lock again. Raises BeatAlreadyRunning if another beat holds it now; other errors (the database
    unreachable) propagate, and the caller keeps `handle` and checks again later."""
    guard = beat_guard(settings)
    reason = guard.lost(handle)
    if reason is None:
        return handle
    log.warning("beat.guard_session_lost", error=reason)
    handle.close()
    fresh = guard.take()
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


def _supervising_worker() -> int | None:
    value = os.environ.get(PARENT_PID_ENV, "")
    return int(value) if value.isdigit() else None


def _acquire_when_reachable(settings: Settings, max_backoff: float = 30.0) -> GuardHandle:
    """`acquire_beat_guard`, retried with doubling backoff while the database cannot be reached (a beat
    started before its database waits instead of exiting); the outage is logged once, and its end."""
    guard = beat_guard(settings)

    def outage(exc: Exception) -> str | None:
        return str(exc).splitlines()[0] if guard.unreachable(exc) else None

    events = ("beat.database_unreachable", "beat.database_reachable_again")
    return retry_while_unreachable(guard.take, outage, log, events, max_backoff=max_backoff)


def take_guard() -> None:
    """Take the single-beat guard for this process (once), or leave with status 3. A beat supervised by a
    worker first binds its life to that worker, so that even a refused or starting beat cannot outlive it."""
    if _held:  # an embedded beat sends both beat_embedded_init and beat_init
        return
    worker = _supervising_worker()
    if worker is not None:
        bind_to_parent(worker)
    settings = process_settings.settings()
    try:
        _held.append(_acquire_when_reachable(settings))
    except BeatAlreadyRunning as exc:
        if worker is not None:
            log.info("beat.standby", reason=str(exc))  # the supervising worker tries again later
        else:
            log.critical("beat.refused", reason=str(exc))
        os._exit(EXIT_BEAT_TAKEN)  # leave at once: a second scheduler would double every periodic task
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    log.info("beat.guard_taken", pid=os.getpid())
    if beat_guard(settings).watched:
        threading.Thread(target=_watch_guard, args=(settings,), name="beat-guard", daemon=True).start()


class GuardedScheduler(PersistentScheduler):
    """Celery's file-backed scheduler that takes the single-beat guard before it opens its schedule file
    (`celery beat -S workers.beat:GuardedScheduler`): a refused beat leaves the running beat's file alone."""

    def setup_schedule(self) -> None:
        take_guard()
        super().setup_schedule()


def _on_beat_init(**_: Any) -> None:
    take_guard()


def _on_embedded_beat_init(**_: Any) -> None:
    # Celery's own `worker -B` runs the beat as a forked child: it must not outlive that worker either.
    bind_to_parent(os.getppid())
    take_guard()


beat_init.connect(_on_beat_init, weak=False)
beat_embedded_init.connect(_on_embedded_beat_init, weak=False)
