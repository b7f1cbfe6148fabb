"""Exactly one beat: a guard taken when beat starts, held for its lifetime, released by its death.

On PostgreSQL it is a session advisory lock on a dedicated connection: if the beat process dies, its
connection closes and the lock is free at once, with no TTL to tune. With SQLite (the embedded
database, or an explicit `sqlite:` URL) it is an exclusive `flock` on `beat.lock` in the data directory, or
beside the explicit database file (SQLite is one host by design):
the kernel drops it when the holder dies, however it dies, so a lock left by a dead process never blocks.
The holder writes its pid into the file (for operators and the refusal message); the pid is information
only, never a reason to refuse. A second beat that cannot take the guard logs a critical line and exits
with status 3.

A beat started by a worker as its supervised child (`workers.beat_supervisor`) finds the worker's pid in
SUMMARIZER_BEAT_PARENT_PID: it binds its life to the worker (`workers.parent_death`) before it takes the
guard, and a refusal is logged as `beat.standby` (the worker tries again later) rather than critical.
`GuardedScheduler` takes the guard before Celery opens the schedule file, so a refused beat never touches
the running beat's file; a beat run without it takes the guard on `beat_init`.

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
from pathlib import Path
from typing import Any

import structlog
from celery.beat import PersistentScheduler
from celery.signals import beat_embedded_init, beat_init
from sqlalchemy.engine import make_url

from summarizer.settings import Settings
from workers import process_settings
from workers.parent_death import bind_to_parent

log = structlog.get_logger("workers.beat")

ADVISORY_LOCK_KEY = 0x53554D42  # "SUMB"
EXIT_BEAT_TAKEN = 3
GUARD_CHECK_SECONDS = 5.0
PARENT_PID_ENV = "SUMMARIZER_BEAT_PARENT_PID"
_held: list[Any] = []  # keeps the lock's connection or file open for the life of the process


class BeatAlreadyRunning(RuntimeError):
    pass


def lock_file(settings: Settings) -> Path:
    """The embedded database's guard in the data directory; an explicit SQLite file's beside that file
    (`s.db` -> `s.db.beat.lock`), so two deployments with their own files never refuse each other."""
    if not settings.embedded_database:
        database = make_url(settings.resolved_database_url()).database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            path = Path(database)
            return path.with_name(path.name + ".beat.lock")
    return settings.data_dir / "beat.lock"


def lock_holder(path: Path) -> int | None:
    """The pid written by the beat that took `path` last (it may be dead: the file is never cleaned up)."""
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _take_file_lock(path: Path) -> Any:
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    # Opened without truncating: a beat that is refused must not erase the holder's pid.
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise BeatAlreadyRunning(f"another beat (pid {lock_holder(path)}) holds {path}") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return open(fd, "r+b", buffering=0)


def acquire_beat_guard(settings: Settings) -> Any:
    """Take the single-beat guard or raise BeatAlreadyRunning; the returned handle must be kept alive."""
    if settings.sqlite_database:
        return _take_file_lock(lock_file(settings))
    import psycopg

    driver_url = make_url(settings.resolved_database_url()).set(drivername="postgresql")
    url = driver_url.render_as_string(hide_password=False)
    conn = psycopg.connect(url, autocommit=True)
    row = conn.execute("SELECT pg_try_advisory_lock(%s)", (ADVISORY_LOCK_KEY,)).fetchone()
    if not row or not row[0]:
        conn.close()
        raise BeatAlreadyRunning("another beat holds the PostgreSQL advisory lock")
    return conn


def guard_is_free(settings: Settings) -> bool:
    """Whether a beat starting now would get the guard: taken and let go at once (for the moment of one
    round trip a beat starting elsewhere would be refused). Errors (the database unreachable) propagate."""
    try:
        acquire_beat_guard(settings).close()
    except BeatAlreadyRunning:
        return False
    return True


def check_beat_guard(settings: Settings, handle: Any) -> Any:
    """The guard's handle after making sure it still holds the lock: `handle` itself, or a new session that
    took the lock again. Raises BeatAlreadyRunning if another beat holds it now; other errors (the database
    unreachable) propagate, and the caller keeps `handle` and checks again later."""
    if settings.sqlite_database:
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


def _supervising_worker() -> int | None:
    value = os.environ.get(PARENT_PID_ENV, "")
    return int(value) if value.isdigit() else None


def _acquire_when_reachable(settings: Settings, max_backoff: float = 30.0) -> Any:
    """`acquire_beat_guard`, retried with doubling backoff while the database cannot be reached (a beat
    started before its database waits instead of exiting); the outage is logged once, and its end."""
    import psycopg

    delay, down = 1.0, False
    while True:
        try:
            guard = acquire_beat_guard(settings)
        except psycopg.OperationalError as exc:
            if not down:
                log.error("beat.database_unreachable", error=str(exc).splitlines()[0], retry_in=delay)
                down = True
            time.sleep(delay)  # a backoff between connection attempts, not a wait for another process
            delay = min(delay * 2, max_backoff)
            continue
        if down:
            log.warning("beat.database_reachable_again")
        return guard


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
    if not settings.sqlite_database:
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
