"""A worker's own beat, run as a supervised child process (`celery worker --supervised-beat`).

`summarizer worker` starts the worker with this option where it used to pass Celery's `-B` (embedded
mode, or `--beat`). The worker then runs `celery beat` as its child and:

* the child dies with the worker, however the worker dies (SIGKILL included): it is started with the
  worker's pid in SUMMARIZER_BEAT_PARENT_PID and binds its life to it (`workers.parent_death`: Linux's
  parent-death signal, and a watch on its parent pid everywhere). It stays in the worker's process group,
  so a signal to the group (Ctrl-C in a terminal) reaches both;
* a child that exits while the worker runs is started again after a backoff (1 s, doubling up to 30 s; a
  child that ran for a minute starts the count over). A new child is started only after the previous one
  has exited and been reaped, so a worker never runs two beats;
* a child refused by the single-beat guard (another beat holds it: the beat of another worker, a
  standalone beat, or, on a platform without the parent-death signal, an orphan that has not noticed yet)
  exits with status 3. The worker then stands by: every PROBE_SECONDS it checks whether the guard is free
  (`workers.beat.guard_is_free`, a system call or one database round trip, far cheaper than starting an
  interpreter) and starts a new child as soon as it is, so the worker's beat takes over within seconds
  of the other one's death;
* the child is never started or restarted once the worker is shutting down, and is stopped (SIGTERM, then
  SIGKILL after STOP_GRACE_SECONDS) when the worker stops.

The child is started from the supervisor's own thread, which lives as long as the worker: Linux sends
the parent-death signal when the thread that forked the child exits, not only when the process does.
Unlike Celery's `-B` (a fork of the running worker), the child is a fresh interpreter, so it inherits
no threads, locks or connections of the worker, and it works with every pool, gevent included.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import click
import structlog
from celery import Celery, bootsteps
from celery.signals import worker_shutting_down

from summarizer.broker.celery_config import CELERY_APP
from workers import process_settings
from workers.beat import EXIT_BEAT_TAKEN, PARENT_PID_ENV, guard_is_free

log = structlog.get_logger("workers.beat_supervisor")

OPTION = "--supervised-beat"
SCHEDULER = "workers.beat:GuardedScheduler"
FIRST_BACKOFF_SECONDS = 1.0
MAX_BACKOFF_SECONDS = 30.0
HEALTHY_RUN_SECONDS = 60.0
STOP_GRACE_SECONDS = 10.0
PROBE_SECONDS = 2.0

_supervisors: list[BeatSupervisor] = []


def beat_command(loglevel: str) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", CELERY_APP, "beat", "-l", loglevel, "-S", SCHEDULER]


class BeatSupervisor:
    """Runs `argv` as a child process, restarting it with backoff until stopped; never two at once. After
    a child exits with EXIT_BEAT_TAKEN the next one waits until `guard_free()` says it would succeed."""

    def __init__(
        self,
        argv: list[str],
        guard_free: Callable[[], bool],
        *,
        name: str = "beat",
        parent_env: str = PARENT_PID_ENV,
    ) -> None:
        self.argv = argv
        self.guard_free = guard_free
        self.name = name  # the prefix of the log events: `beat.child_started`, `maintenance.child_exited`
        self.parent_env = parent_env  # the variable that hands the child this process's pid
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._shutting_down = False  # set from a signal handler: a plain flag, no lock
        self._child: subprocess.Popen[bytes] | None = None
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"{self.name}-supervisor", daemon=True)
        self._thread.start()

    def shutting_down(self) -> None:
        """The worker is on its way out: start no more children (the running one is stopped by `stop`)."""
        self._shutting_down = True

    def stop(self) -> None:
        with self._lock:
            self._stopped.set()
            child = self._child
        if child is not None and child.poll() is None:
            child.terminate()
            try:
                child.wait(STOP_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                log.warning(f"{self.name}.child_killed", pid=child.pid)
                child.kill()
                child.wait()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(STOP_GRACE_SECONDS)

    def _done(self) -> bool:
        return self._stopped.is_set() or self._shutting_down

    def _spawn(self) -> subprocess.Popen[bytes] | None:
        with self._lock:  # `stop` either sees this child or keeps it from being started
            if self._done():
                return None
            env = {**os.environ, self.parent_env: str(os.getpid())}
            self._child = subprocess.Popen(self.argv, env=env)
            return self._child

    def _run(self) -> None:
        delay = FIRST_BACKOFF_SECONDS
        refused = False
        while not self._done():
            if refused and not self._stand_by():
                return
            started = time.monotonic()
            try:
                child = self._spawn()
            except OSError as exc:
                log.error(f"{self.name}.child_not_started", error=str(exc))
                code: int | None = None
            else:
                if child is None:
                    return
                log.info(f"{self.name}.child_started", pid=child.pid)
                code = child.wait()
                if self._done():
                    return
            refused = code == EXIT_BEAT_TAKEN
            if refused:
                log.info(f"{self.name}.child_standing_by", code=code)
                continue
            if time.monotonic() - started >= HEALTHY_RUN_SECONDS:
                delay = FIRST_BACKOFF_SECONDS
            log.warning(f"{self.name}.child_exited", code=code, restart_in=delay)
            if self._stopped.wait(delay):  # the backoff, cut short by `stop`
                return
            delay = min(delay * 2, MAX_BACKOFF_SECONDS)

    def _stand_by(self) -> bool:
        """Wait until the guard is free (True) or the worker stops (False)."""
        while not self._stopped.wait(PROBE_SECONDS):  # the probe's period, cut short by `stop`
            if self._done():
                return False
            try:
                if self.guard_free():
                    return True
            except Exception as exc:  # the database unreachable: a child will find out and say so
                log.warning(f"{self.name}.guard_unprobed", error=str(exc))
                return True
        return False


class SupervisedBeat(bootsteps.StartStopStep):
    """Worker bootstep: with `--supervised-beat`, the worker runs its beat as a supervised child."""

    label = "SupervisedBeat"
    conditional = True

    def __init__(self, parent: Any, supervised_beat: bool = False, **kwargs: Any) -> None:
        self.enabled = bool(supervised_beat)
        super().__init__(parent, **kwargs)

    def create(self, parent: Any) -> BeatSupervisor:  # type: ignore[override]  # celery-types says None
        level = parent.loglevel
        name = logging.getLevelName(level) if isinstance(level, int) else str(level or "INFO")
        settings = process_settings.settings()
        supervisor = BeatSupervisor(beat_command(name), lambda: guard_is_free(settings))
        _supervisors.append(supervisor)
        return supervisor


def _on_shutting_down(**_: Any) -> None:
    for supervisor in _supervisors:
        supervisor.shutting_down()


def install(app: Celery) -> None:
    """Add the `--supervised-beat` worker option and the bootstep that acts on it to `app`."""
    app.user_options["worker"].add(
        click.Option(
            [OPTION],
            is_flag=True,
            default=False,
            help="Run the beat as a child process that dies with this worker and is restarted if it exits.",
        )
    )
    app.steps["worker"].add(SupervisedBeat)
    worker_shutting_down.connect(_on_shutting_down, weak=False)
