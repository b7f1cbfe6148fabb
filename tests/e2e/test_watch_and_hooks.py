"""`summarizer watch` and `summarizer hook` as real processes: a watcher follows a log being appended to,
is killed without warning and restarted, and the database ends holding every message exactly once; the
Claude Code hook records the transcript on Stop and answers SessionStart with the summary in the JSON the
hooks spec defines."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
from sqlalchemy import func, select

from summarizer.ingest.reader import read_records
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.statements.schema import messages
from tests.acceptance.cli import run_cli
from tests.e2e.test_http_curl import server_env
from tests.support.corpora import fixture_path
from tests.support.fleet import wait_for
from tests.support.watch_process import watch_process

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("corpora")]

FIXTURES = fixture_path("")
CLAUDE = FIXTURES / "claude_code" / "compact_after_rewind.jsonl"
CODEX = FIXTURES / "codex" / "rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl"


@pytest.fixture(params=["sqlite", "postgresql"])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """The settings, and a home of its own (where the agents keep their logs, the hooks' only source)."""
    home = {"HOME": str(tmp_path / "home")}
    if request.param == "sqlite":
        found = server_env(tmp_path, f"sqlite:///{(tmp_path / 'watch.db').as_posix()}")
        assert run_cli("db", "upgrade", env=found).returncode == 0
        return found | home
    request.getfixturevalue("pg")  # the session's PostgreSQL database, emptied
    return server_env(tmp_path, request.getfixturevalue("empty_postgres_url")) | home


def _count(env: dict[str, str]) -> int:
    db = connect_database(env["SUMMARIZER_DATABASE_URL"])
    try:
        with db.read() as conn:
            return int(conn.execute(select(func.count()).select_from(messages)).scalar_one())
    finally:
        db.dispose()


def _distinct(env: dict[str, str]) -> int:
    db = connect_database(env["SUMMARIZER_DATABASE_URL"])
    try:
        with db.read() as conn:
            pairs = conn.execute(select(messages.c.agent_id, messages.c.host_id)).all()
            return len(set(pairs))
    finally:
        db.dispose()


def test_a_watcher_killed_and_restarted_records_every_line_once(env: dict[str, str], tmp_path: Path) -> None:
    logs = tmp_path / "sessions"
    logs.mkdir()
    live = logs / "rollout-live.jsonl"
    lines = CODEX.read_bytes().splitlines(keepends=True)
    expected = len(read_records(CODEX, "codex", None, 1_000_000))
    live.write_bytes(b"".join(lines[:50]))
    log = tmp_path / "watch.log"
    with watch_process(env, [str(logs)], log):
        wait_for(lambda: _count(env) > 0, 60, "the first lines recorded")
        with live.open("ab") as out:  # appended while the watcher runs, the last line left unfinished
            out.write(b"".join(lines[50:200]) + lines[200][:40])
        wait_for(lambda: _count(env) >= len(read_records_prefix(lines[:200])), 60, "the appended lines")
    # Killed (SIGKILL, no goodbye). The log grows while nothing watches it.
    with live.open("ab") as out:
        out.write(lines[200][40:] + b"".join(lines[201:]))
    with watch_process(env, [str(logs)], log):
        wait_for(lambda: _count(env) == expected, 60, "every message after the restart")
    assert _distinct(env) == expected  # none twice
    assert "Traceback" not in log.read_text(), log.read_text()


def read_records_prefix(lines: list[bytes]) -> Sequence[object]:
    """What the first lines of the rollout hold once each user item's verdict is known (the reader waits
    for the line after a user item)."""
    from io import BytesIO

    from summarizer.ingest import iter_stream_records

    return list(iter_stream_records(BytesIO(b"".join(lines)), "prefix", "codex", None, 1_000_000))[:-1]


def _hook(env: dict[str, str], event: dict[str, object]) -> subprocess.CompletedProcess[str]:
    return run_cli("hook", "claude-code", env=env, stdin=json.dumps(event))


def test_the_claude_code_hook_records_on_stop_and_gives_the_summary_at_session_start(
    env: dict[str, str], tmp_path: Path
) -> None:
    project = tmp_path / "home" / ".claude" / "projects" / "-home-me-app"
    project.mkdir(parents=True)
    transcript = project / "b3c1.jsonl"
    transcript.write_bytes(CLAUDE.read_bytes())
    base = {"session_id": "b3c1", "transcript_path": str(transcript), "cwd": "/home/me/app"}

    fresh = _hook(env, {**base, "hook_event_name": "SessionStart", "source": "startup"})
    assert fresh.returncode == 0, fresh.stderr
    assert json.loads(fresh.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"

    stopped = _hook(env, {**base, "hook_event_name": "Stop", "stop_hook_active": False})
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stdout == ""
    assert _count(env) == len(read_records(CLAUDE, "claude-code", "x", 1_000_000))
    again = _hook(env, {**base, "hook_event_name": "Stop", "stop_hook_active": False})
    assert again.returncode == 0
    assert _distinct(env) == _count(env)  # a second Stop records nothing twice

    assert run_cli("drain", env=env).returncode == 0
    started = _hook(
        env, {**base, "session_id": "new-one", "hook_event_name": "SessionStart", "source": "startup"}
    )
    assert started.returncode == 0, started.stderr
    output = json.loads(started.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "SessionStart"
    assert "Memory of earlier work" in output["additionalContext"]
    assert "recall" in output["additionalContext"]

    broken = run_cli("hook", "claude-code", env=env, stdin="{not json")
    assert broken.returncode == 1  # never 2: a hook must not block the agent
    assert "not JSON" in broken.stderr


def test_the_gemini_cli_hook_records_after_each_turn_and_gives_the_summary_at_session_start(
    env: dict[str, str], tmp_path: Path
) -> None:
    from tests.unit.ingest.test_gemini_cli import MESSAGES, META

    chats = tmp_path / "home" / ".gemini" / "tmp" / str(META["projectHash"]) / "chats"
    chats.mkdir(parents=True)
    session = chats / "session-2025-10-18T14-57-f86f5318.json"
    base = {"session_id": META["sessionId"], "transcript_path": str(session), "cwd": "/home/me/app"}

    def gemini(event: dict[str, object]) -> subprocess.CompletedProcess[str]:
        return run_cli("hook", "gemini-cli", env=env, stdin=json.dumps({**base, **event}))

    started = gemini({"hook_event_name": "SessionStart", "source": "startup"})  # no session file yet
    assert started.returncode == 0, started.stderr
    assert json.loads(started.stdout) == {"hookSpecificOutput": {"hookEventName": "SessionStart"}}

    # Gemini CLI rewrites the whole session document after each turn; each AfterAgent records what is new.
    session.write_text(json.dumps({**META, "messages": MESSAGES[:2]}))
    first = gemini({"hook_event_name": "AfterAgent", "prompt": "List the files here", "prompt_response": ""})
    assert first.returncode == 0, first.stderr
    assert first.stdout == ""
    assert _count(env) == 5  # the request, two calls and their results
    session.write_text(json.dumps({**META, "messages": MESSAGES}))
    second = gemini({"hook_event_name": "AfterAgent", "prompt": "", "prompt_response": "There is a README"})
    assert second.returncode == 0, second.stderr
    assert _count(env) == 6 == _distinct(env)  # the final answer added, nothing twice

    assert run_cli("drain", env=env).returncode == 0
    resumed = gemini({"hook_event_name": "SessionStart", "source": "resume"})
    assert resumed.returncode == 0, resumed.stderr
    output = json.loads(resumed.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "SessionStart"
    assert "Memory of earlier work" in output["additionalContext"]

    session.write_text('{"sessionId": "x", "messages": [{"type": "robot"}]}')
    broken = gemini({"hook_event_name": "SessionEnd", "reason": "exit"})
    assert broken.returncode == 0  # a bad file is reported, never blocks the CLI (exit 2 would)
    assert "robot" in broken.stderr
    assert _count(env) == 6


def test_a_watcher_records_a_json_document_log_each_time_it_is_rewritten(
    env: dict[str, str], tmp_path: Path
) -> None:
    source = FIXTURES / "gemini_cli" / "gemini-cli-pomodoro-timer.json"
    document = json.loads(source.read_text(encoding="utf-8"))
    chats = tmp_path / "gemini" / "abc123" / "chats"
    chats.mkdir(parents=True)
    live = chats / "session-2025-10-21T20-04-0b23371a.json"
    half = len(document["messages"]) // 2
    live.write_text(json.dumps({**document, "messages": document["messages"][:half]}), encoding="utf-8")
    (chats.parent / "logs.json").write_text('[{"sessionId": "x", "type": "user", "message": "hi"}]')
    expected = len(read_records(source, "gemini-cli", None, 1_000_000))
    log = tmp_path / "watch.log"
    with watch_process(env, [str(tmp_path / "gemini")], log):
        wait_for(lambda: _count(env) > 0, 60, "the first half recorded")
        assert _count(env) < expected
        live.write_text(json.dumps(document), encoding="utf-8")  # Gemini CLI rewrites the whole file
        wait_for(lambda: _count(env) == expected, 60, "the rewritten document recorded")
    assert _distinct(env) == expected
    assert "warning" not in log.read_text()  # logs.json is no log format: passed over quietly
