"""Real worker processes for end-to-end tests: a private Redis, Celery workers and beat as subprocesses.

Every process is started in its own process group and killed in `close()`, whatever the test did.
Waits are on conditions (`wait_for`), never fixed sleeps.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.support.marks import require_mark
from tests.support.services import ROOT


def wait_for(condition: Callable[[], object], timeout: float, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except Exception:
            pass
        time.sleep(0.05)  # polling interval of a condition wait, not a fixed wait
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def fleet_env(
    tmp_path: Path, *, database_url: str = "", broker_url: str = "", **overrides: str
) -> dict[str, str]:
    """Settings for worker processes under test: the fake LLM and short timings (dispatch, rescue, retries,
    small-batch flush). Empty URLs mean embedded mode; `overrides` are settings by their lowercase names."""
    env = {
        "SUMMARIZER_DATABASE_URL": database_url,
        "SUMMARIZER_BROKER_URL": broker_url,
        "SUMMARIZER_DATA_DIR": str(tmp_path / "data"),
        "SUMMARIZER_LLM": "fake",
        # A batch takes every eviction waiting (3 or more), so an agent can end with 1-2 left over; those
        # are flushed after BATCH_MAX_WAIT, which must be short here (the default is 15 minutes).
        "SUMMARIZER_BATCH_MAX_WAIT": "1",
        "SUMMARIZER_DISPATCH_INTERVAL": "0.5",
        "SUMMARIZER_RESCUE_INTERVAL": "0.5",
        "SUMMARIZER_RETRY_BASE_SECONDS": "0.2",
        "SUMMARIZER_RETRY_MAX_SECONDS": "1",
    }
    env.update({f"SUMMARIZER_{k.upper()}": v for k, v in overrides.items()})
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def stop_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop a process started in its own group: SIGTERM to the group, SIGKILL if it is still there 15 s on."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(15)


class RedisServer:
    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is not installed"
        self.proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        import redis

        client = redis.Redis(port=self.port)
        wait_for(client.ping, 10, "redis to start")
        client.close()

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None


class Fleet:
    """Workers and beat sharing one environment (database, broker, fake LLM settings)."""

    def __init__(self, env: dict[str, str], logdir: Path) -> None:
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
        self.logdir = logdir
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def _start(
        self, name: str, args: list[str], extra_env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        require_mark("slow", "starts worker processes")
        log = open(self.logdir / f"{name}.log", "ab")  # noqa: SIM115  (closed with the process)
        proc = subprocess.Popen(
            args,
            cwd=ROOT,
            env={**self.env, **(extra_env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        self.procs[name] = proc
        return proc

    def worker(
        self,
        name: str,
        concurrency: int = 4,
        extra_env: dict[str, str] | None = None,
        pool: str = "threads",
    ) -> subprocess.Popen[bytes]:
        args = [sys.executable, "-m", "celery", "-A", "workers.app", "worker", "-P", pool]
        args += [
            "-c",
            str(concurrency),
            "-n",
            f"{name}@%h",
            "-l",
            "INFO",
            "-Q",
            "summarizer",
            "--without-mingle",
        ]
        return self._start(name, args, extra_env)

    def beat(self, name: str = "beat") -> subprocess.Popen[bytes]:
        schedule = self.logdir / f"{name}-schedule"
        return self._start(
            name, [sys.executable, "-m", "celery", "-A", "workers.app", "beat", "-s", str(schedule)]
        )

    def cli(self, name: str, *args: str) -> subprocess.Popen[bytes]:
        return self._start(name, [str(Path(sys.executable).parent / "summarizer"), *args])

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        proc = self.procs.pop(name)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        proc.wait(15)

    def kill_process(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Signal the process itself, not its group (what `kill PID` does); it stays listed, so `close()`
        still kills whatever is left of its group."""
        proc = self.procs[name]
        os.kill(proc.pid, sig)
        proc.wait(15)

    def log(self, name: str) -> str:
        return (self.logdir / f"{name}.log").read_text(errors="replace")

    def close(self) -> None:
        for name in list(self.procs):
            self.kill(name)
