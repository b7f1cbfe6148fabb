"""A database that never answers: every command ends within seconds with one line naming the database and
the wait that ran out (exit 1); a hook ends within its budget with one line and exit 0, and records the
transcript from where it stopped once the database is back.

The silent server is a real TCP listener on 127.0.0.1 that accepts connections and never sends a byte; the
slow one is the test's PostgreSQL with `alembic_version` locked by the test, so every statement waits."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from tests.acceptance.cli import run_cli
from tests.e2e.test_hooks_hostile import CLAUDE, _env, claude_project, count, event, hook
from tests.support.services import ROOT

pytestmark = [pytest.mark.usefixtures("corpora")]

PASSWORD = "silent-pw-4242"
BOUND_S = 20.0
"""A command or hook facing a 2 s connect timeout ends well within this (interpreter start included)."""


class SilentServer:
    """Accepts every connection on an ephemeral port of 127.0.0.1, keeps it open and says nothing."""

    def __init__(self) -> None:
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.2)
        self.port = int(self._server.getsockname()[1])
        self.accepted: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                self.accepted.append(self._server.accept()[0])
            except TimeoutError:
                continue

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for conn in self.accepted:
            conn.close()
        self._server.close()


@pytest.fixture
def silent() -> Iterator[SilentServer]:
    server = SilentServer()
    yield server
    server.close()


def silent_env(tmp_path: Path, server: SilentServer) -> dict[str, str]:
    url = f"postgresql://summarizer:{PASSWORD}@127.0.0.1:{server.port}/gone"
    return _env(tmp_path, url) | {"SUMMARIZER_DATABASE_CONNECT_TIMEOUT": "2"}


def one_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize(
    ("args", "stdin"), [(["context", "x"], None), (["ingest", "-"], '{"content": "hi"}\n')]
)
def test_a_command_facing_a_silent_server_ends_with_one_line(
    silent: SilentServer, tmp_path: Path, args: list[str], stdin: str | None
) -> None:
    started = time.monotonic()
    done = run_cli(*args, env=silent_env(tmp_path, silent), stdin=stdin, timeout=60)
    took = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    line = one_line(done.stderr)
    assert "did not answer within 2 s" in line, line
    assert f"summarizer:***@127.0.0.1:{silent.port}/gone" in line, line
    assert PASSWORD not in done.stdout + done.stderr
    assert silent.accepted, "the command never reached the server"
    assert took < BOUND_S, took


def test_a_hook_facing_a_silent_server_exits_0_and_loses_nothing(
    silent: SilentServer, tmp_path: Path, empty_postgres_url: str
) -> None:
    env = silent_env(tmp_path, silent)
    transcript = claude_project(env) / "b3c1.jsonl"
    transcript.write_bytes(CLAUDE.read_bytes())
    for name in ("SessionStart", "Stop"):
        started = time.monotonic()
        done = hook(env, "claude-code", event(name, transcript))
        assert time.monotonic() - started < BOUND_S
        assert done.returncode == 0, done.stderr
        line = one_line(done.stderr.decode())
        assert line.startswith("summarizer hook:"), line
        assert "did not answer within 2 s" in line
        assert done.stdout == b""
    back = env | {"SUMMARIZER_DATABASE_URL": empty_postgres_url}
    assert hook(back, "claude-code", event("Stop", transcript)).returncode == 0
    recorded = count(back)
    assert recorded > 0
    assert hook(back, "claude-code", event("Stop", transcript)).returncode == 0
    assert count(back) == recorded


@pytest.fixture
def locked(empty_postgres_url: str) -> Iterator[str]:
    """The test's PostgreSQL, migrated, with `alembic_version` locked until the test ends: every command
    reads it first, so every command's first statement waits."""
    assert run_cli("db", "upgrade", env={"SUMMARIZER_DATABASE_URL": empty_postgres_url}).returncode == 0
    db: Database = connect_database(empty_postgres_url, statement_timeout=0)
    with db.engine.connect() as conn, conn.begin():
        conn.execute(text("LOCK TABLE alembic_version IN ACCESS EXCLUSIVE MODE"))
        yield empty_postgres_url
    db.dispose()


def test_a_statement_that_waits_too_long_ends_the_command(locked: str, tmp_path: Path) -> None:
    env = _env(tmp_path, locked) | {"SUMMARIZER_DATABASE_STATEMENT_TIMEOUT": "1"}
    started = time.monotonic()
    done = run_cli("context", "x", env=env, timeout=60)
    assert time.monotonic() - started < BOUND_S
    assert done.returncode == 1
    line = one_line(done.stderr)
    assert "did not finish a statement within 1 s" in line, line


def test_a_hook_ends_within_its_budget_whatever_the_database_does(locked: str, tmp_path: Path) -> None:
    env = _env(tmp_path, locked) | {"SUMMARIZER_DATABASE_STATEMENT_TIMEOUT": "0"}  # statements wait forever
    transcript = claude_project(env) / "b3c1.jsonl"
    transcript.write_bytes(CLAUDE.read_bytes())
    budget = "import summarizer.cli.commands_hook as h; h.HOOK_BUDGET_S = 2.0"
    run = "from summarizer.cli.main import main; sys.argv[1:] = ['hook', 'claude-code']; main()"
    full = {k: v for k, v in os.environ.items() if not k.startswith("SUMMARIZER_")} | env
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", f"import sys; {budget}; {run}"],
        input=event("Stop", transcript),
        capture_output=True,
        env=full,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert time.monotonic() - started < BOUND_S
    assert done.returncode == 0, done.stderr
    line = one_line(done.stderr.decode())
    assert "stopped after 2 s" in line, line
    assert "nothing is lost" in line
