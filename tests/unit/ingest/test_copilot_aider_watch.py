"""`summarizer watch` as a real process over both new formats at once: with no directory given it follows
Copilot CLI's `~/.copilot/session-state` (the default folder), and an aider history named on the command
line; the real fixtures appended while it runs are recorded as importing them whole does, once each."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

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
TRANSCRIPT = FIXTURES / "copilot" / "session.jsonl"
HISTORY = FIXTURES / "aider" / ".aider.chat.history.md"
SESSION = "f275f42b-9852-4619-be31-e09ff8cf802a"


def _stored(url: str) -> list[tuple[str, str, str]]:
    db = connect_database(url)
    try:
        with db.read() as conn:
            rows = conn.execute(select(messages.c.agent_id, messages.c.host_id, messages.c.kind))
            return sorted((r.agent_id, r.host_id, r.kind) for r in rows)
    finally:
        db.dispose()


def test_watch_follows_a_copilot_session_by_default_and_a_named_aider_history(tmp_path: Path) -> None:
    home = tmp_path / "home"
    session = home / ".copilot" / "session-state" / SESSION / "events.jsonl"
    session.parent.mkdir(parents=True)
    history = tmp_path / "shop" / ".aider.chat.history.md"
    history.parent.mkdir()
    env = server_env(tmp_path, f"sqlite:///{(tmp_path / 'watch.db').as_posix()}") | {"HOME": str(home)}
    assert run_cli("db", "upgrade", env=env).returncode == 0
    events, chat = TRANSCRIPT.read_bytes(), HISTORY.read_bytes()
    session.write_bytes(events[: len(events) // 2])  # the last line cut: waited for
    history.write_bytes(b"")
    log = tmp_path / "watch.log"
    expected = sorted(
        (r.agent_id, str(r.message.host_id), r.message.kind.value)
        for path in (TRANSCRIPT, HISTORY)
        for r in read_records(path, "auto", {TRANSCRIPT: SESSION, HISTORY: "shop"}[path], 1 << 20)
    )
    url = env["SUMMARIZER_DATABASE_URL"]
    # Two watchers over one database: one with no directory (the default folders), one given the history.
    strip = ("SUMMARIZER_", "COPILOT_HOME")
    with (
        watch_process(env, [], tmp_path / "default.log", strip=strip),
        watch_process(env, [str(history)], log, strip=strip),
    ):
        wait_for(lambda: len(_stored(url)) > 0, 60, "the first half of the session recorded")
        with session.open("ab") as out:
            out.write(events[len(events) // 2 :])
        cut = chat.index(b"\n> ", len(chat) // 2) + 1  # between two of aider's writes
        with history.open("ab") as out:
            out.write(chat[:cut])
        wait_for(lambda: any(a == "shop" for a, _, _ in _stored(url)), 60, "the history's first part")
        with history.open("ab") as out:
            out.write(chat[cut:])
        wait_for(lambda: _stored(url) == expected, 90, "both logs recorded whole")
    assert len(expected) == 37 + 676  # the counts test_copilot_fixture and test_aider_fixture hold
    assert "Traceback" not in log.read_text() + (tmp_path / "default.log").read_text()
