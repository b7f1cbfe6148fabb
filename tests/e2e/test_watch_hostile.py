"""`summarizer watch` as a real process over a tree of agent logs with hostile files beside good ones: each
bad file is reported once (until it changes) and every good file is recorded, during catch-up and live;
a root deleted and made again is watched again; `watch --once` exits 0 when good files were recorded and
1 only when nothing could be read."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from sqlalchemy import func, select

from summarizer.ingest.reader import read_records
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.statements.schema import messages
from tests.acceptance.cli import run_cli
from tests.e2e.test_http_curl import server_env
from tests.support.corpora import fixture_path
from tests.support.watch_process import waited, watch_process

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("corpora")]

FIXTURES = fixture_path("")
CLAUDE = FIXTURES / "claude_code" / "compact_after_rewind.jsonl"
CODEX = FIXTURES / "codex" / "rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl"
GEMINI_DOCUMENT = FIXTURES / "gemini_cli" / "gemini-cli-pomodoro-timer.json"
DOCUMENT_LIMIT = 40_000
"""Under the Gemini fixture's size (68 kB): that session document is refused unread."""


@pytest.fixture(params=["sqlite", "postgresql"])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    if request.param == "sqlite":
        found = server_env(tmp_path, f"sqlite:///{(tmp_path / 'watch.db').as_posix()}")
        assert run_cli("db", "upgrade", env=found).returncode == 0
    else:
        request.getfixturevalue("pg")  # the session's PostgreSQL database, emptied
        found = server_env(tmp_path, request.getfixturevalue("empty_postgres_url"))
    return found | {"SUMMARIZER_FOLLOW_MAX_DOCUMENT_BYTES": str(DOCUMENT_LIMIT)}


def claude(session: str) -> bytes:
    """The Claude Code fixture as the transcript of another session."""
    return CLAUDE.read_bytes().replace(b'"sessionId":"s1"', f'"sessionId":"{session}"'.encode())


def snapshot_line() -> bytes:
    """The bookkeeping line a Claude Code 2.x session file usually opens with (no session id)."""
    snapshot = {"messageId": "u1", "trackedFileBackups": {}, "timestamp": "2025-07-01T10:00:00.000Z"}
    line = {
        "type": "file-history-snapshot",
        "messageId": "u1",
        "snapshot": snapshot,
        "isSnapshotUpdate": False,
    }
    return json.dumps(line).encode() + b"\n"


def image_line(session: str) -> bytes:
    """A first line of over 64 KiB: a prompt with a pasted image."""
    image = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo" + "A" * 120_000}
    line = {
        "type": "user",
        "timestamp": "2025-07-01T09:59:00.000Z",
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/tmp",
        "sessionId": session,
        "version": "2.1.0",
        "uuid": "img1",
        "message": {
            "role": "user",
            "content": [{"type": "image", "source": image}, {"type": "text", "text": "What is this?"}],
        },
    }
    return json.dumps(line).encode() + b"\n"


def expected(path: Path, fmt: str) -> tuple[set[str], int]:
    """The agents a file's messages go to and how many there are, read whole by `ingest`'s reader."""
    records = read_records(path, fmt, None, 1_048_576)
    assert records
    return {r.agent_id for r in records}, len(records)


def stored(env: dict[str, str], agents: set[str]) -> int:
    db = connect_database(env["SUMMARIZER_DATABASE_URL"])
    try:
        with db.read() as conn:
            query = select(func.count()).select_from(messages).where(messages.c.agent_id.in_(sorted(agents)))
            return int(conn.execute(query).scalar_one())
    finally:
        db.dispose()


def recorded(env: dict[str, str], path: Path, fmt: str) -> bool:
    agents, count = expected(path, fmt)
    return stored(env, agents) == count


WITHOUT_FILE_PERMISSION_OVERRIDE = (
    ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search"]
    if os.geteuid() == 0
    else []
)
"""Run as root, a process reads any file: without these two capabilities, permissions hold for it too."""


def warnings_about(log: Path, name: str) -> int:
    return sum(1 for line in log.read_text().splitlines() if line.startswith("warning:") and name in line)


def hostile_tree(root: Path) -> dict[str, Path]:
    """Good logs (a Claude Code 1.x and 2.x session, one whose first line is a pasted image, a Codex
    rollout) beside bad ones (an agent id over 200 characters, a 5,000-digit number, a deeply nested
    document, a file of no log format, a JSON document log over the size limit)."""
    project = root / "-home-me-app"
    project.mkdir(parents=True)
    files = {
        "good": project / "good.jsonl",
        "v2": project / "v2.jsonl",
        "image": project / "image.jsonl",
        "codex": root / "rollout-2026-02-23T12-41-04-019c8a4d.jsonl",
        "long_id": project / "long-id.jsonl",
        "digits": project / "digits.jsonl",
        "nested": project / "nested.json",
        "foreign": project / "foreign.jsonl",
        "big": root / "abc123" / "chats" / "session-2025-10-21T20-04-big.json",
    }
    files["good"].write_bytes(claude("good-1"))
    files["v2"].write_bytes(snapshot_line() + claude("v2-session"))
    files["image"].write_bytes(image_line("image-1") + claude("image-1"))
    files["codex"].write_bytes(CODEX.read_bytes())
    files["long_id"].write_bytes(claude("x" * 250))
    files["digits"].write_text('{"type": "user", "sessionId": "d", "uuid": "d1", "n": ' + "7" * 5000 + "}\n")
    files["nested"].write_text("[" * 100_000 + "]" * 100_000)
    files["foreign"].write_text('{"foo": 1}\n{"bar": 2}\n')
    files["big"].parent.mkdir(parents=True)
    shutil.copyfile(GEMINI_DOCUMENT, files["big"])
    return files


def test_a_watcher_records_every_good_file_next_to_each_bad_one_and_reports_each_once(
    env: dict[str, str], tmp_path: Path
) -> None:
    root = tmp_path / "projects"
    files = hostile_tree(root)
    assert files["big"].stat().st_size > DOCUMENT_LIMIT
    log = tmp_path / "watch.log"
    good = [("good", "claude-code"), ("v2", "claude-code"), ("image", "claude-code"), ("codex", "codex")]
    with watch_process(env, [str(root)], log) as proc:
        # Catch-up: every good file, whatever lies beside it.
        waited(lambda: all(recorded(env, files[n], f) for n, f in good), log, "the good files recorded")
        for name in ("long-id.jsonl", "foreign.jsonl", "session-2025-10-21T20-04-big.json"):
            assert warnings_about(log, name) == 1, log.read_text()
        assert "SUMMARIZER_FOLLOW_MAX_DOCUMENT_BYTES" in log.read_text()
        for name in ("digits.jsonl", "nested.json"):
            assert warnings_about(log, name) <= 1, log.read_text()

        # Live: a new session is recorded; the bad files, unchanged, are not reported again.
        later = root / "-home-me-app" / "later.jsonl"
        later.write_bytes(snapshot_line() + claude("later-1"))
        waited(lambda: recorded(env, later, "claude-code"), log, "a new session recorded")
        assert warnings_about(log, "long-id.jsonl") == 1
        assert warnings_about(log, "foreign.jsonl") == 1

        # A bad file that changes is tried again: here it became a transcript.
        files["foreign"].write_bytes(claude("fixed-1"))
        waited(lambda: recorded(env, files["foreign"], "claude-code"), log, "the mended file recorded")
        # A recorded log rewritten with other text is read again from the start.
        files["good"].write_bytes(CODEX.read_bytes().replace(b"019c8a4d-8f45", b"019c8a4d-aaaa"))
        waited(lambda: recorded(env, files["good"], "codex"), log, "the rewritten log recorded")
        assert proc.poll() is None  # still watching
    assert "Traceback" not in log.read_text(), log.read_text()


def test_a_watched_root_deleted_and_made_again_is_watched_again(env: dict[str, str], tmp_path: Path) -> None:
    root = tmp_path / "projects"
    (root / "-home-me-app").mkdir(parents=True)
    first = root / "-home-me-app" / "one.jsonl"
    first.write_bytes(claude("one-1"))
    log = tmp_path / "watch.log"
    with watch_process(env, [str(root)], log) as proc:
        waited(lambda: recorded(env, first, "claude-code"), log, "the first session recorded")
        shutil.rmtree(root)
        waited(lambda: "is gone" in log.read_text(), log, "the root's loss noticed")
        (root / "-home-me-app").mkdir(parents=True)
        second = root / "-home-me-app" / "two.jsonl"
        second.write_bytes(claude("two-1"))
        waited(lambda: recorded(env, second, "claude-code"), log, "a session in the new root recorded")
        third = root / "-home-me-app" / "three.jsonl"  # and it is watched live again
        third.write_bytes(claude("three-1"))
        waited(lambda: recorded(env, third, "claude-code"), log, "a later session recorded")
        assert proc.poll() is None
    assert "Traceback" not in log.read_text(), log.read_text()


def test_watch_once_exits_0_when_good_files_were_recorded_and_1_when_nothing_could_be(
    env: dict[str, str], tmp_path: Path
) -> None:
    root = tmp_path / "projects"
    files = hostile_tree(root)
    done = run_cli("watch", "--once", str(root), env=env)
    assert done.returncode == 0, done.stderr
    for name, fmt in (
        ("good", "claude-code"),
        ("v2", "claude-code"),
        ("image", "claude-code"),
        ("codex", "codex"),
    ):
        assert recorded(env, files[name], fmt), name
    assert "long-id.jsonl" in done.stderr
    assert "foreign.jsonl" in done.stderr
    assert "Traceback" not in done.stderr

    bad = tmp_path / "bad"
    (bad / "p").mkdir(parents=True)
    (bad / "p" / "foreign.jsonl").write_text('{"foo": 1}\n')
    (bad / "p" / "long-id.jsonl").write_bytes(claude("y" * 250))
    failed = run_cli("watch", "--once", str(bad), env=env)
    assert failed.returncode == 1, failed.stderr
    assert failed.stderr.count("warning:") == 2, failed.stderr
    assert "Traceback" not in failed.stderr


def test_an_unreadable_file_or_folder_is_reported_once_and_read_once_it_can_be(
    env: dict[str, str], tmp_path: Path
) -> None:
    root = tmp_path / "projects"
    project = root / "-home-me-app"
    project.mkdir(parents=True)
    good = project / "good.jsonl"
    good.write_bytes(claude("good-2"))
    locked = project / "locked.jsonl"
    locked.write_bytes(claude("locked-1"))
    locked.chmod(0)
    closed = root / "-home-me-closed"
    closed.mkdir()
    inside = closed / "inside.jsonl"
    inside.write_bytes(claude("inside-1"))
    closed.chmod(0)
    log = tmp_path / "watch.log"
    try:
        with watch_process(env, [str(root)], log, prefix=WITHOUT_FILE_PERMISSION_OVERRIDE) as proc:
            waited(lambda: recorded(env, good, "claude-code"), log, "the readable file recorded")
            assert warnings_about(log, "locked.jsonl") == 1, log.read_text()
            assert warnings_about(log, "-home-me-closed") == 1, log.read_text()
            assert "Permission denied" in log.read_text()
            later = project / "later.jsonl"
            later.write_bytes(claude("later-2"))
            waited(lambda: recorded(env, later, "claude-code"), log, "a new file recorded")
            assert warnings_about(log, "locked.jsonl") == 1  # unchanged: not reported again

            locked.chmod(0o644)
            waited(lambda: recorded(env, locked, "claude-code"), log, "the file recorded once readable")
            closed.chmod(0o755)
            waited(
                lambda: recorded(env, inside, "claude-code"), log, "the folder's file recorded once listable"
            )
            assert proc.poll() is None
    finally:
        closed.chmod(0o755)
        locked.chmod(0o644)
    assert "Traceback" not in log.read_text(), log.read_text()


def test_a_claude_code_2_session_that_has_only_its_snapshot_line_yet_is_waited_for_quietly(
    env: dict[str, str], tmp_path: Path
) -> None:
    root = tmp_path / "projects"
    (root / "-home-me-app").mkdir(parents=True)
    session = root / "-home-me-app" / "fresh.jsonl"
    session.write_bytes(snapshot_line())  # what Claude Code writes first, before the prompt
    early = run_cli("watch", "--once", str(root), env=env)
    assert early.returncode == 0, early.stderr
    assert "warning" not in early.stderr, early.stderr
    with session.open("ab") as out:
        out.write(claude("fresh-1"))
    later = run_cli("watch", "--once", str(root), env=env)
    assert later.returncode == 0, later.stderr
    assert "warning" not in later.stderr, later.stderr
    assert recorded(env, session, "claude-code")
