"""`summarizer watch` and the Claude Code hook share one position per transcript, and so one agent per
transcript: given the same --per they record it for the same agent; given different ones, the file stays
with the agent it was first recorded for, every message is recorded once, and the one that would have
named another agent says so (the hook on stderr, exit 0; `watch` as a warning). Real processes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import func, select

from summarizer.ingest.reader import read_records
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.statements.schema import messages
from tests.acceptance.cli import run_cli
from tests.e2e.test_http_curl import server_env

pytestmark = pytest.mark.slow

SESSION = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "claude_code"
    / "queue_operations_then_user_lines.jsonl"
)
SESSION_ID = "5e55a0b1-0000-4000-8000-000000000020"
PROJECT = "-home-me-kiln"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    found = server_env(tmp_path, f"sqlite:///{(tmp_path / 'watch.db').as_posix()}")
    assert run_cli("db", "upgrade", env=found).returncode == 0
    return found | {"HOME": str(tmp_path / "home")}


@pytest.fixture
def transcript(env: dict[str, str]) -> Path:
    """The first half of a session, in the project folder Claude Code keeps it in."""
    path = Path(env["HOME"]) / ".claude" / "projects" / PROJECT / f"{SESSION_ID}.jsonl"
    path.parent.mkdir(parents=True)
    lines = SESSION.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:5]))
    return path


def finish(transcript: Path) -> None:
    lines = SESSION.read_bytes().splitlines(keepends=True)
    with transcript.open("ab") as out:
        out.write(b"".join(lines[5:]))


def by_agent(env: dict[str, str]) -> dict[str, int]:
    db = connect_database(env["SUMMARIZER_DATABASE_URL"])
    try:
        with db.read() as conn:
            rows = conn.execute(select(messages.c.agent_id, func.count()).group_by(messages.c.agent_id))
            return {str(agent): int(count) for agent, count in rows}
    finally:
        db.dispose()


def hook(env: dict[str, str], transcript: Path, name: str) -> subprocess.CompletedProcess[str]:
    event = {"session_id": SESSION_ID, "transcript_path": str(transcript), "cwd": "/home/me/kiln"}
    return run_cli("hook", "claude-code", env=env, stdin=json.dumps({**event, "hook_event_name": name}))


def watch_once(env: dict[str, str], *per: str) -> subprocess.CompletedProcess[str]:
    return run_cli("watch", "--once", *per, str(Path(env["HOME"]) / ".claude" / "projects"), env=env)


def test_watch_per_project_and_the_hook_record_one_transcript_for_the_project(
    env: dict[str, str], transcript: Path
) -> None:
    assert watch_once(env, "--per", "project").returncode == 0
    finish(transcript)
    stopped = hook(env, transcript, "Stop")
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stderr == ""
    assert by_agent(env) == {PROJECT: len(read_records(SESSION, "claude-code", None, 1 << 20))}


def test_a_hook_after_watch_per_session_records_for_the_session_and_says_so(
    env: dict[str, str], transcript: Path
) -> None:
    assert watch_once(env).returncode == 0
    finish(transcript)
    stopped = hook(env, transcript, "Stop")
    assert stopped.returncode == 0, stopped.stderr
    said = "recorded for each session's own agent since it was first read, not for agent -home-me-kiln"
    assert f"{said} (--per project)" in stopped.stderr
    assert "give `watch` and the hooks the same --per" in stopped.stderr
    assert by_agent(env) == {SESSION_ID: len(read_records(SESSION, "claude-code", None, 1 << 20))}

    assert run_cli("drain", env=env).returncode == 0
    resumed = hook(env, transcript, "SessionStart")  # the memory given back is the transcript's agent's
    assert resumed.returncode == 0, resumed.stderr
    assert "Memory of earlier work" in json.loads(resumed.stdout)["hookSpecificOutput"]["additionalContext"]


def test_watch_per_session_after_the_hook_keeps_the_project_and_warns(
    env: dict[str, str], transcript: Path
) -> None:
    assert hook(env, transcript, "Stop").returncode == 0
    finish(transcript)
    watched = watch_once(env)
    assert watched.returncode == 0
    assert (
        f"recorded for agent {PROJECT} since it was first read, not for each session's own agent"
        in watched.stderr
    )
    assert "(--per session)" in watched.stderr
    assert by_agent(env) == {PROJECT: len(read_records(SESSION, "claude-code", None, 1 << 20))}
