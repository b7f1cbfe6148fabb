"""`summarizer watch` as a real process through database outages: PostgreSQL refusing connections (its
backends terminated, new ones not allowed) at start and while watching, and a SQLite file locked by another
process past the busy timeout. The watcher keeps running, says once per outage that the database is
unreachable and once that it is back, and then records what was written meanwhile: nothing lost, nothing
twice. `watch --once` exits 1 with one line when the database cannot be reached."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url

from tests.acceptance.cli import run_cli
from tests.e2e.test_http_curl import server_env
from tests.e2e.test_watch_hostile import claude, recorded
from tests.support.services import ROOT, fresh_postgres_database, migrate, pg_admin_url
from tests.support.watch_process import waited, watch_process

pytestmark = pytest.mark.slow

UNREACHABLE = "is unreachable"
BACK = "the database is reachable again"


def said(log: Path, words: str) -> int:
    return log.read_text().count(words)


class Postgres:
    """The test's own PostgreSQL database, which the test takes down and brings back: while down, its
    backends are terminated and no new connection is allowed."""

    def __init__(self, url: str) -> None:
        self.name = make_url(url).database
        self.admin: Engine = create_engine(pg_admin_url(), isolation_level="AUTOCOMMIT")

    def down(self) -> None:
        with self.admin.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS false'))
            conn.execute(
                text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :name"),
                {"name": self.name},
            )

    def up(self) -> None:
        with self.admin.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS true'))

    def close(self) -> None:
        self.up()
        self.admin.dispose()


@pytest.fixture
def postgres(tmp_path: Path) -> Iterator[tuple[Postgres, dict[str, str]]]:
    for url in fresh_postgres_database("summarizer_watch_outage"):
        migrate(url)
        database = Postgres(url)
        try:
            yield database, server_env(tmp_path, url)
        finally:
            database.close()


@pytest.mark.postgres
def test_watch_rides_out_postgresql_refusing_connections_at_start_and_while_watching(
    postgres: tuple[Postgres, dict[str, str]], tmp_path: Path
) -> None:
    database, env = postgres
    project = tmp_path / "projects" / "-home-me-app"
    project.mkdir(parents=True)
    first = project / "first.jsonl"
    first.write_bytes(claude("first-1"))
    log = tmp_path / "watch.log"

    database.down()  # down before the watcher starts
    with watch_process(env, [str(project.parent)], log, started=False) as proc:
        waited(lambda: said(log, UNREACHABLE) == 1, log, "the outage at start reported")
        once = run_cli("watch", "--once", str(project.parent), env=env)
        assert once.returncode == 1, once.stderr
        assert once.stderr.count("\n") == 1, once.stderr
        assert once.stderr.startswith("error: database ")
        assert UNREACHABLE in once.stderr
        assert proc.poll() is None  # the live watcher waits
        database.up()
        waited(lambda: said(log, BACK) == 1 and "watching" in log.read_text(), log, "the database found")
        waited(lambda: recorded(env, first, "claude-code"), log, "the first session recorded")

        database.down()  # down while watching: the next change meets it
        second = project / "second.jsonl"
        second.write_bytes(claude("second-1")[:-1])  # its last line still being written
        waited(lambda: said(log, UNREACHABLE) == 2, log, "the second outage reported")
        with second.open("ab") as out:
            out.write(b"\n")
        third = project / "third.jsonl"
        third.write_bytes(claude("third-1"))
        assert proc.poll() is None
        database.up()
        waited(lambda: said(log, BACK) == 2, log, "the database found again")
        for path in (first, second, third):  # each message once: the counts are those of the whole file
            waited(partial(recorded, env, path, "claude-code"), log, f"{path.name} recorded")
        assert said(log, UNREACHABLE) == 2, log.read_text()  # once per outage, however many retries
        assert proc.poll() is None
    assert "Traceback" not in log.read_text(), log.read_text()


def test_watch_waits_for_a_sqlite_file_another_process_holds_locked(tmp_path: Path) -> None:
    path = tmp_path / "watch.db"
    env = server_env(tmp_path, f"sqlite:///{path.as_posix()}")
    assert run_cli("db", "upgrade", env=env).returncode == 0
    project = tmp_path / "projects" / "-home-me-app"
    project.mkdir(parents=True)
    first = project / "first.jsonl"
    first.write_bytes(claude("first-1"))
    log = tmp_path / "watch.log"
    with watch_process(env, [str(project.parent)], log, started=False) as proc:
        waited(lambda: recorded(env, first, "claude-code"), log, "the first session recorded")
        waited(lambda: "watching" in log.read_text(), log, "the watch set up")
        holder = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            holder.execute(
                "BEGIN EXCLUSIVE"
            )  # every writer waits for it, then gives up: "database is locked"
            once = subprocess.Popen(
                [sys.executable, "-m", "summarizer", "watch", "--once", str(project.parent)],
                env={k: v for k, v in os.environ.items() if not k.startswith("SUMMARIZER_")} | env,
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            second = project / "second.jsonl"
            second.write_bytes(claude("second-1"))
            waited(lambda: said(log, UNREACHABLE) == 1, log, "the locked database reported")
            _out, err = once.communicate(timeout=120)
            assert once.returncode == 1, err
            assert b"database is locked" in err
            assert b"Traceback" not in err
            assert proc.poll() is None
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        waited(lambda: said(log, BACK) == 1, log, "the database reachable again")
        waited(lambda: recorded(env, second, "claude-code"), log, "the session written meanwhile recorded")
        assert said(log, UNREACHABLE) == 1
        assert proc.poll() is None
    assert "Traceback" not in log.read_text(), log.read_text()
