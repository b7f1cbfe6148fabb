"""A child process that must not outlive its parent.

Two mechanisms, so that neither a missed signal nor a platform without it leaves an orphan behind:

* on Linux the child asks the kernel for a signal when its parent dies (`prctl(PR_SET_PDEATHSIG)` through
  ctypes). The kernel sends it when the *thread* that started the child exits, so the parent must start
  the child from a thread that lives as long as the parent does;
* everywhere, a daemon thread watches `os.getppid()`: once the parent is gone the child is re-parented
  (to init or a subreaper) and the pid changes. The thread then sends the same signal to its own process
  and, if the process is still there after a grace period, ends it with `os._exit`.

A parent that died before the child asked (the request comes a moment after the fork) is caught by
comparing `os.getppid()` with the pid the parent passed down.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

import structlog

log = structlog.get_logger("workers.parent_death")

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
EXIT_PARENT_GONE = 1
POLL_SECONDS = 0.5
GRACE_SECONDS = 10.0


def request_parent_death_signal(signum: int) -> bool:
    """Ask Linux to send `signum` to this process when its parent dies; False where that is not offered."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return False
    if prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
        log.warning("process.pdeathsig_refused", errno=ctypes.get_errno())
        return False
    return True


def bind_to_parent(
    parent_pid: int,
    *,
    signum: int = signal.SIGTERM,
    use_prctl: bool = True,
    poll_seconds: float = POLL_SECONDS,
    grace_seconds: float = GRACE_SECONDS,
) -> None:
    """Make this process end when `parent_pid` (its parent) ends: `signum` first, `os._exit` if that fails."""
    if use_prctl:
        request_parent_death_signal(signum)
    if os.getppid() != parent_pid:
        log.warning("process.parent_gone", parent_pid=parent_pid, when="start")
        os._exit(EXIT_PARENT_GONE)  # nothing has started yet: there is nothing to wind down
    watcher = threading.Thread(
        target=_watch,
        args=(parent_pid, signum, poll_seconds, grace_seconds),
        name="parent-watch",
        daemon=True,
    )
    watcher.start()


def _watch(parent_pid: int, signum: int, poll_seconds: float, grace_seconds: float) -> None:
    while os.getppid() == parent_pid:
        time.sleep(poll_seconds)  # the watch's period, not a wait for something to happen
    log.warning("process.parent_gone", parent_pid=parent_pid)
    os.kill(os.getpid(), signum)  # the process's own handler winds it down (a beat saves its schedule)
    time.sleep(grace_seconds)  # how long that may take; a process still here is stuck
    os._exit(EXIT_PARENT_GONE)
