"""`summarizer watch` as a real process on PostgreSQL, beside a log holding a value the database refuses:
the watcher says so once, as `warning: FILE: ...`, without a traceback or the refused statement, keeps
following the other files, and tries the file again only when it changes. `watch --once` says it in one
line and exits 0 (the other files could be read); `ingest` of the same file is one error line, exit 2.

Identifiers too long for their columns are stored fitted, so no log refuses on a database as migrated. The
refusal is provoked for real in a database of the test's own whose `messages.tool_call_id` column is
narrowed to 8 characters before `watch` starts: a tool call id longer than that is a value the database
refuses. (`messages.name` cannot be narrowed: PostgreSQL's search document is generated from it.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tests.acceptance.cli import run_cli
from tests.e2e.test_http_curl import server_env
from tests.e2e.test_watch_hostile import claude, recorded, stored, warnings_about
from tests.support.services import fresh_postgres_database, migrate
from tests.support.watch_process import waited, watch_process

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

NARROWED = 8
REFUSED_ID = "toolu_refused_zzzz"  # 18 characters: longer than the narrowed column
REFUSED = "the database refused a value: value too long for type character varying(8)"


def refused_session(session: str) -> bytes:
    """A Claude Code session whose first answer also calls a tool by an id the narrowed column refuses."""
    lines = claude(session).decode().splitlines()
    answer = json.loads(lines[1])
    answer["message"]["content"].append({"type": "tool_use", "id": REFUSED_ID, "name": "Bash", "input": {}})
    lines[1] = json.dumps(answer)
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """The test's own PostgreSQL database, migrated, its `messages.tool_call_id` column then narrowed."""
    for url in fresh_postgres_database("summarizer_watch_refused"):
        migrate(url)
        engine = create_engine(url)
        try:
            with engine.begin() as conn:
                conn.execute(text(f"ALTER TABLE messages ALTER COLUMN tool_call_id TYPE varchar({NARROWED})"))
        finally:
            engine.dispose()
        yield server_env(tmp_path, url)


def test_watch_reports_a_refused_file_once_and_follows_the_others(
    env: dict[str, str], tmp_path: Path
) -> None:
    project = tmp_path / "projects" / "-home-me-app"
    project.mkdir(parents=True)
    bad = project / "bad.jsonl"
    bad.write_bytes(refused_session("bad"))
    first = project / "first.jsonl"
    first.write_bytes(claude("first"))
    log = tmp_path / "watch.log"
    with watch_process(env, [str(project.parent)], log) as proc:
        waited(lambda: recorded(env, first, "claude-code"), log, "the good file recorded")
        waited(lambda: warnings_about(log, "bad.jsonl") == 1, log, "the refused file reported")
        assert f"warning: {bad}: {REFUSED}; nothing of it was stored" in log.read_text().splitlines()

        second = project / "second.jsonl"  # written after: followed as ever
        second.write_bytes(claude("second"))
        waited(lambda: recorded(env, second, "claude-code"), log, "a file written later recorded")
        assert warnings_about(log, "bad.jsonl") == 1  # not said again while it does not change

        with bad.open("ab") as out:  # changed: tried again, and refused again
            out.write(claude("bad").splitlines(keepends=True)[-1])
        waited(lambda: warnings_about(log, "bad.jsonl") == 2, log, "the changed file tried again")
        assert stored(env, {"bad"}) == 0
        assert proc.poll() is None
    said = log.read_text()
    assert warnings_about(log, "second.jsonl") == 0, said
    assert "Traceback" not in said, said
    assert "INSERT" not in said
    assert "zzzz" not in said  # the refused value is not shown
    assert "pipeline" not in said  # the driver's second report of the same failure is not shown


def test_watch_once_and_ingest_say_the_refusal_in_one_line(env: dict[str, str], tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-home-me-app"
    project.mkdir(parents=True)
    bad = project / "bad.jsonl"
    bad.write_bytes(refused_session("bad"))
    good = project / "good.jsonl"
    good.write_bytes(claude("good"))

    once = run_cli("watch", "--once", str(project.parent), env=env)
    assert once.returncode == 0, once.stderr  # a file could be read
    assert once.stderr == f"warning: {bad}: {REFUSED}; nothing of it was stored\n"
    assert recorded(env, good, "claude-code")

    ingested = run_cli("ingest", str(bad), env=env)
    assert ingested.returncode == 2, ingested.stderr
    assert f"{REFUSED}; nothing of it was stored" in ingested.stderr
    assert ingested.stderr.count("\n") == 1, ingested.stderr
    assert "Traceback" not in ingested.stderr
    assert "zzzz" not in ingested.stderr
    assert stored(env, {"bad"}) == 0
