"""`summarizer hook` as a real process fed what Claude Code and Gemini CLI send, and worse: whatever stdin or
the SUMMARIZER_* settings hold, the exit status is 0 or 1 (2 would block the agent) with at most one line
on stderr and never a traceback; a transcript outside the agent's own log folders is refused before
anything of it is read or kept; paths over 200 characters work; a Gemini CLI session whose last message
changed is still recorded; a Codex thread id is matched literally."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select

from summarizer.storage.backends import connect_database
from summarizer.storage.sql.statements.schema import followed_files, messages
from tests.acceptance.cli import run_cli
from tests.e2e.test_http_curl import server_env
from tests.support.corpora import fixture_path
from tests.support.services import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("corpora")]

FIXTURES = fixture_path("")
CLAUDE = FIXTURES / "claude_code" / "compact_after_rewind.jsonl"
CODEX = FIXTURES / "codex" / "rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl"


def _env(tmp_path: Path, url: str) -> dict[str, str]:
    return server_env(tmp_path, url) | {"HOME": str(tmp_path / "home"), "CODEX_HOME": ""}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    found = _env(tmp_path, f"sqlite:///{(tmp_path / 'hooks.db').as_posix()}")
    assert run_cli("db", "upgrade", env=found).returncode == 0
    return found


@pytest.fixture(params=["sqlite", "postgresql"])
def any_env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    if request.param == "sqlite":
        return dict(request.getfixturevalue("env"))
    request.getfixturevalue("pg")  # the session's PostgreSQL database, emptied
    return _env(tmp_path, request.getfixturevalue("empty_postgres_url"))


def hook(env: dict[str, str], agent: str, stdin: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("SUMMARIZER_")} | env
    return subprocess.run(
        [sys.executable, "-m", "summarizer", "hook", agent, *args],
        input=stdin,
        capture_output=True,
        env=full,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def assert_never_blocks(done: subprocess.CompletedProcess[bytes]) -> str:
    """Exit 0 or 1, at most one line on stderr, no traceback; the stderr line."""
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode in (0, 1), (done.returncode, stderr)
    assert "Traceback" not in stderr, stderr
    assert len(stderr.splitlines()) <= 1, stderr
    return stderr


def count(env: dict[str, str], table: object = messages) -> int:
    db = connect_database(env["SUMMARIZER_DATABASE_URL"])
    try:
        with db.read() as conn:
            return int(conn.execute(select(func.count()).select_from(table)).scalar_one())  # type: ignore[arg-type]
    finally:
        db.dispose()


def claude_project(env: dict[str, str], name: str = "-home-me-app") -> Path:
    project = Path(env["HOME"]) / ".claude" / "projects" / name
    project.mkdir(parents=True, exist_ok=True)
    return project


def event(name: str, transcript: Path | str, **more: object) -> bytes:
    body = {"session_id": "b3c1", "transcript_path": str(transcript), "cwd": "/home/me/app"}
    return json.dumps({**body, "hook_event_name": name, **more}).encode()


HOSTILE_STDIN = [
    b"",
    b"not json",
    b"\xff\xfe\x00 not utf-8",
    b"[]",
    b"null",
    b'"Stop"',
    b"7" * 5000,
    b'{"hook_event_name": "Stop", "x": ' + b"7" * 5000 + b"}",
    b"[" * 100_000 + b"]" * 100_000,
    b'{"a": ' * 50_000 + b"1" + b"}" * 50_000,
    b'{"hook_event_name": "Stop", "pad": "' + b"x" * (3 << 20) + b'"}',
    b'{"hook_event_name": 5}',
    b'{"hook_event_name": "Stop"}',
    b'{"hook_event_name": "Stop", "transcript_path": 7}',
    b'{"hook_event_name": "Stop", "transcript_path": ["a"]}',
    b'{"hook_event_name": "Stop", "transcript_path": "a\\u0000b"}',
    b'{"hook_event_name": "Stop", "transcript_path": "/nonexistent/x.jsonl"}',
    b'{"hook_event_name": "SessionStart", "session_id": {}, "cwd": ["x"], "transcript_path": null}',
    b'{"hook_event_name": "SessionStart", "session_id": " \\u0007 ", "cwd": "\\u0000"}',
    b'{"hook_event_name": "AfterAgent", "transcript_path": "."}',
]


@pytest.mark.parametrize("agent", ["claude-code", "gemini-cli"])
def test_hostile_stdin_never_blocks_the_agent(env: dict[str, str], agent: str) -> None:
    for stdin in HOSTILE_STDIN:
        assert_never_blocks(hook(env, agent, stdin))
    assert_never_blocks(hook(env, agent, b"{}", "--per", "nonsense"))
    assert count(env) == 0


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SUMMARIZER_WINDOW_TOKENS", "-1"),
        ("SUMMARIZER_BATCH_SIZE", "lots"),
        ("SUMMARIZER_FOLLOW_MAX_DOCUMENT_BYTES", "0"),
        ("SUMMARIZER_DATABASE_URL", "nonsense://x"),
    ],
)
def test_bad_settings_are_one_line_and_exit_1(env: dict[str, str], variable: str, value: str) -> None:
    transcript = claude_project(env) / "b3c1.jsonl"
    transcript.write_bytes(CLAUDE.read_bytes())
    bad = env | {variable: value}
    for name in ("SessionStart", "Stop"):
        done = hook(bad, "claude-code", event(name, transcript))
        stderr = assert_never_blocks(done)
        assert done.returncode == 1
        assert stderr.startswith("summarizer hook:"), stderr


def test_an_unreachable_database_is_one_line_and_exit_0(env: dict[str, str]) -> None:
    transcript = claude_project(env) / "b3c1.jsonl"
    transcript.write_bytes(CLAUDE.read_bytes())
    down = env | {"SUMMARIZER_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"}
    for name in ("SessionStart", "Stop"):
        done = hook(down, "claude-code", event(name, transcript))
        stderr = assert_never_blocks(done)
        assert done.returncode == 0
        assert stderr.startswith("summarizer hook:"), stderr
        assert "is unreachable" in stderr, stderr
        assert "nothing is lost" in stderr


def test_a_transcript_outside_the_agents_log_folders_is_refused_unread(
    env: dict[str, str], tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere" / "b3c1.jsonl"
    outside.parent.mkdir()
    outside.write_bytes(CLAUDE.read_bytes())  # a real transcript, in the wrong place
    linked = claude_project(env) / "linked.jsonl"
    linked.symlink_to(outside)  # inside by name, outside in truth
    for path in (outside, linked, Path("/etc/passwd"), claude_project(env) / ".." / ".." / ".." / "x.jsonl"):
        done = hook(env, "claude-code", event("Stop", path))
        stderr = assert_never_blocks(done)
        assert done.returncode == 1
        assert "not in the agent's log folders" in stderr, stderr
        assert "SUMMARIZER_HOOK_LOG_FOLDERS" in stderr
    started = hook(env, "claude-code", event("SessionStart", outside))
    assert_never_blocks(started)
    assert json.loads(started.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    gemini = hook(env, "gemini-cli", event("AfterAgent", claude_project(env) / "b3c1.jsonl"))
    assert gemini.returncode == 1  # Claude Code's folder is not Gemini CLI's
    assert (count(env), count(env, followed_files)) == (0, 0)  # nothing read, no fingerprint kept

    allowed = env | {"SUMMARIZER_HOOK_LOG_FOLDERS": f"/nonexistent{os.pathsep}{outside.parent}"}
    done = hook(allowed, "claude-code", event("Stop", outside))
    assert done.returncode == 0, done.stderr
    assert count(env) > 0


def test_paths_over_200_characters_work(env: dict[str, str]) -> None:
    deep = "/home/me/" + "/".join(["a-rather-long-folder-name"] * 8)
    project = claude_project(env, "".join(c if c.isalnum() else "-" for c in deep))
    assert len(project.name) > 200
    transcript = project / "b3c1.jsonl"
    transcript.write_bytes(CLAUDE.read_bytes())
    for name in ("SessionStart", "Stop", "SessionEnd"):
        done = hook(env, "claude-code", event(name, transcript, cwd=deep))
        assert done.returncode == 0, done.stderr
    stored = count(env)
    assert stored > 0
    started = hook(env, "claude-code", event("SessionStart", "", cwd=deep))  # the working directory alone
    assert started.returncode == 0, started.stderr
    assert hook(env, "claude-code", event("Stop", transcript, cwd=deep)).returncode == 0
    assert count(env) == stored  # the same agent: nothing twice
    for session in ("s" * 300, deep):
        per_session = hook(
            env, "claude-code", event("Stop", transcript, session_id=session), "--per", "session"
        )
        assert per_session.returncode == 0, per_session.stderr


def test_a_gemini_session_whose_last_message_changed_is_still_recorded(any_env: dict[str, str]) -> None:
    from tests.unit.ingest.test_gemini_cli import MESSAGES, META

    env = any_env
    chats = Path(env["HOME"]) / ".gemini" / "tmp" / str(META["projectHash"]) / "chats"
    chats.mkdir(parents=True)
    session = chats / "session-2025-10-18T14-57-f86f5318.json"
    turn = {"id": "m9", "timestamp": "2025-10-18T14:59:00.000Z", "type": "gemini", "content": "Half an answ"}
    session.write_text(json.dumps({**META, "messages": [*MESSAGES, turn]}))
    first = hook(env, "gemini-cli", event("AfterAgent", session))
    assert first.returncode == 0, first.stderr
    stored = count(env)
    finished = {**turn, "content": "Half an answer, now whole."}  # the same message, rewritten
    later = {"id": "m10", "timestamp": "2025-10-18T15:00:00.000Z", "type": "user", "content": "Thanks"}
    session.write_text(json.dumps({**META, "messages": [*MESSAGES, finished, later]}))
    second = hook(env, "gemini-cli", event("AfterAgent", session))
    assert_never_blocks(second)
    assert second.returncode == 0, second.stderr
    assert count(env) == stored + 1  # the new message recorded; the changed one kept as first recorded


def test_a_codex_thread_id_is_matched_literally(env: dict[str, str]) -> None:
    day = Path(env["HOME"]) / ".codex" / "sessions" / "2026" / "02" / "23"
    day.mkdir(parents=True)
    rollout = day / "rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl"
    rollout.write_bytes(CODEX.read_bytes())
    for payload in ("", "{", "[]", '{"type": "agent-turn-complete", "thread-id": 5}', "7" * 5000):
        assert_never_blocks(hook(env, "codex", b"", payload))
    for thread in ("[0-9]*", "*", "019c8a4d-*", "?19c8a4d-8f45-7010-8b5d-7fad920aa6f9", "../*"):
        payload = json.dumps({"type": "agent-turn-complete", "thread-id": thread, "cwd": "/home/me/app"})
        done = hook(env, "codex", b"", payload)
        assert_never_blocks(done)
        assert done.returncode == 1, thread
        assert count(env) == 0, thread
    payload = json.dumps(
        {
            "type": "agent-turn-complete",
            "thread-id": "019c8a4d-8f45-7010-8b5d-7fad920aa6f9",
            "cwd": "/home/me/app",
        }
    )
    done = hook(env, "codex", b"", payload)
    assert done.returncode == 0, done.stderr
    assert count(env) > 0
