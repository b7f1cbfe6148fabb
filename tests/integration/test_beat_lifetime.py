"""The embedded beat lock and the pieces that keep a worker's beat from outliving it, with real processes:
a lock whose holder was killed is taken over, a child bound to its parent dies with it (by the Linux
parent-death signal and by the parent watch alone), and the supervisor restarts, stands by and stops."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from summarizer.settings import Settings, load_settings
from summarizer.storage.sqlite.beat_guard import lock_holder
from tests.support.beat_lock import lock_file
from tests.support.fleet import wait_for
from tests.support.processes import alive, children_of
from tests.support.services import ROOT
from workers.beat import EXIT_BEAT_TAKEN, BeatAlreadyRunning, acquire_beat_guard, guard_is_free
from workers.beat_supervisor import BeatSupervisor

pytestmark = pytest.mark.slow

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return load_settings(database_url="", broker_url="", data_dir=tmp_path / "data")


HOLDER = """
import signal, sys
from summarizer.settings import load_settings
from workers.beat import acquire_beat_guard
handle = acquire_beat_guard(load_settings(database_url="", data_dir=sys.argv[1]))
print("held", flush=True)
signal.pause()
"""


def test_a_lock_whose_holder_was_killed_is_taken_over(settings: Settings) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(settings.data_dir)], env=ENV, stdout=subprocess.PIPE
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == b"held\n"
        with pytest.raises(BeatAlreadyRunning, match=f"pid {holder.pid}"):
            acquire_beat_guard(settings)
        assert not guard_is_free(settings)
    finally:
        holder.kill()
        holder.wait(10)
    assert lock_holder(lock_file(settings)) == holder.pid  # the dead holder's pid is still written there
    handle = acquire_beat_guard(settings)
    try:
        assert lock_holder(lock_file(settings)) == os.getpid()
    finally:
        handle.close()


def test_a_lock_file_naming_a_dead_process_does_not_block(settings: Settings) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(10)
    settings.data_dir.mkdir(parents=True)
    lock_file(settings).write_text(f"{gone.pid}\n")
    assert guard_is_free(settings)
    assert guard_is_free(settings)  # the probe let the lock go
    acquire_beat_guard(settings).close()


def test_a_refused_beat_leaves_the_holders_pid_in_place(settings: Settings) -> None:
    handle = acquire_beat_guard(settings)
    try:
        with pytest.raises(BeatAlreadyRunning, match=f"pid {os.getpid()}"):
            acquire_beat_guard(settings)
        assert lock_holder(lock_file(settings)) == os.getpid()
    finally:
        handle.close()


PARENT = """
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], *sys.argv[2:]])
print(child.pid, flush=True)
child.wait()
"""

BOUND_CHILD = """
import os, signal, sys
from workers.parent_death import bind_to_parent
bind_to_parent(os.getppid(), use_prctl=sys.argv[1] == "prctl", poll_seconds=float(sys.argv[2]))
print("bound", flush=True)
signal.pause()
"""


@pytest.mark.parametrize(
    ("mechanism", "poll_seconds"),
    [("prctl", "600"), ("watch", "0.2")],  # prctl with a watch too slow to matter; the watch alone
)
def test_a_bound_child_dies_with_its_killed_parent(mechanism: str, poll_seconds: str) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, BOUND_CHILD, mechanism, poll_seconds], env=ENV, stdout=subprocess.PIPE
    )
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert parent.stdout.readline() == b"bound\n"
        assert alive(child)
    finally:
        parent.kill()
        parent.wait(10)
    wait_for(lambda: not alive(child), 5, f"the child to die with its parent ({mechanism})")


def test_a_child_whose_parent_is_already_gone_leaves_at_once() -> None:
    code = "from workers.parent_death import bind_to_parent; bind_to_parent(1); print('bound')"
    done = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, timeout=60)
    assert done.returncode == 1
    assert b"bound" not in done.stdout


def _log_pid(path: Path, then: str) -> list[str]:
    code = f"import os, signal, sys; open(sys.argv[1], 'a').write(f'{{os.getpid()}}\\n'); {then}"
    return [sys.executable, "-c", code, str(path)]


def _started(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def test_the_supervisor_restarts_a_killed_child_one_at_a_time_and_stops_it(tmp_path: Path) -> None:
    log = tmp_path / "started"
    supervisor = BeatSupervisor(_log_pid(log, "signal.pause()"), lambda: True)
    supervisor.start()
    try:
        wait_for(lambda: len(_started(log)) == 1, 30, "the first child")
        [first] = _started(log)
        os.kill(first, signal.SIGKILL)
        most: list[int] = []

        def restarted() -> bool:
            most.append(len(children_of(os.getpid())))
            return len(_started(log)) == 2

        wait_for(restarted, 30, "the child to be restarted")
        assert max(most) <= 1, most
        second = _started(log)[1]
        assert alive(second)
    finally:
        supervisor.stop()
    assert not alive(second)
    assert not supervisor.running


def test_a_refused_child_is_retried_only_once_the_guard_is_free(tmp_path: Path) -> None:
    log = tmp_path / "started"
    probes: list[bool] = []
    free = threading.Event()

    def guard_free() -> bool:
        probes.append(free.is_set())
        return free.is_set()

    supervisor = BeatSupervisor(_log_pid(log, f"sys.exit({EXIT_BEAT_TAKEN})"), guard_free)
    supervisor.start()
    try:
        wait_for(lambda: len(probes) >= 2, 30, "the supervisor to probe the guard")
        assert len(_started(log)) == 1  # refused, then standing by: no child per probe
        free.set()
        wait_for(lambda: len(_started(log)) == 2, 30, "a child once the guard is free")
    finally:
        supervisor.stop()
