"""`summarizer watch` as a real process over a `~/.claude/projects`-like tree holding real Claude Code 2.x
sessions (the corpora's project-fixtures/claude_code, see its README): a session whose file so far holds only the
`file-history-snapshot` line it opens with is recorded once Claude Code writes the rest, the sessions that
open with `summary` and `queue-operation` lines are recorded as they are, and every message is stored once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from summarizer.ingest.reader import read_records
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.statements.schema import messages
from tests.e2e.test_http_curl import server_env
from tests.support.corpora import fixture_path
from tests.support.fleet import wait_for
from tests.support.watch_process import watch_process

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("corpora")]

CLAUDE_CODE = fixture_path("claude_code")
WRITTEN_LIVE = CLAUDE_CODE / "snapshot_first_parallel_calls.jsonl"
ALREADY_THERE = [
    CLAUDE_CODE / "summary_first_parallel_calls.jsonl",
    CLAUDE_CODE / "queue_operation_first.jsonl",
]


@pytest.fixture
def env(tmp_path: Path, postgres_url: str, pg: object) -> dict[str, str]:
    """The settings against the session's PostgreSQL database (emptied by `pg`)."""
    return server_env(tmp_path, postgres_url) | {"HOME": str(tmp_path / "home")}


def _stored(env: dict[str, str]) -> list[tuple[str, str | None]]:
    db = connect_database(env["SUMMARIZER_DATABASE_URL"])
    try:
        with db.read() as conn:
            return [(a, h) for a, h in conn.execute(select(messages.c.agent_id, messages.c.host_id)).all()]
    finally:
        db.dispose()


def _count(env: dict[str, str]) -> int:
    db = connect_database(env["SUMMARIZER_DATABASE_URL"])
    try:
        with db.read() as conn:
            return int(conn.execute(select(func.count()).select_from(messages)).scalar_one())
    finally:
        db.dispose()


def _as_written(path: Path) -> bytes:
    """The file as Claude Code writes it, every line ended: the published copies lost the last newline, and
    a watcher rightly waits for the end of a line that may still be being written."""
    data = path.read_bytes()
    return data if data.endswith(b"\n") else data + b"\n"


def _session_id(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        session = json.loads(line).get("sessionId")
        if isinstance(session, str):
            return session
    raise AssertionError(f"no session id in {path}")


def test_watch_records_real_claude_code_2_sessions_as_they_are_written(
    env: dict[str, str], tmp_path: Path
) -> None:
    projects = Path(env["HOME"]) / ".claude" / "projects"
    project = projects / "-Users-dev-work-cli"
    project.mkdir(parents=True)
    for source in ALREADY_THERE:
        (project / f"{_session_id(source)}.jsonl").write_bytes(_as_written(source))
    live = project / f"{_session_id(WRITTEN_LIVE)}.jsonl"
    lines = _as_written(WRITTEN_LIVE).splitlines(keepends=True)
    first_line = json.loads(lines[0])
    assert first_line["type"] == "file-history-snapshot"
    live.write_bytes(lines[0])  # Claude Code has written only its snapshot line so far

    before = sum(len(read_records(p, "claude-code", None, 1_000_000)) for p in ALREADY_THERE)
    expected = before + len(read_records(WRITTEN_LIVE, "claude-code", None, 1_000_000))
    log = tmp_path / "watch.log"
    with watch_process(env, [str(projects)], log):
        wait_for(lambda: _count(env) == before, 60, "the sessions already in the tree")
        with live.open("ab") as out:  # the session goes on: the prompt, the calls, the replies
            out.write(b"".join(lines[1:]))
        wait_for(lambda: _count(env) == expected, 60, "the session written after the snapshot line")
    stored = _stored(env)
    assert len(set(stored)) == len(stored) == expected
    agents = {agent for agent, _ in stored}
    assert agents == {_session_id(p) for p in [*ALREADY_THERE, WRITTEN_LIVE]}
    output = log.read_text()
    assert "Traceback" not in output, output
    assert "rewind" not in output.lower(), output
