"""`watch` over a Copilot CLI session as it is written, on SQLite and PostgreSQL: the real transcript in
project-fixtures/copilot (corpora) appended in pieces (cut anywhere, mid-line included) to a session folder's
`events.jsonl` records exactly what importing the whole file does: every call paired with its result,
even when the result arrives in a later read, and nothing twice."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from summarizer.composition.follow import build_follower
from summarizer.ingest.reader import read_records
from summarizer.service.follow import log_files
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import messages
from tests.support.corpora import fixture_path
from tests.support.http_api import cli_settings

pytestmark = pytest.mark.usefixtures("corpora")

TRANSCRIPT = fixture_path("copilot/session.jsonl")
SESSION = "f275f42b-9852-4619-be31-e09ff8cf802a"  # the session id the transcript's `result` line gives


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    return cli_settings(monkeypatch, tmp_path, db)


def _stored(db: Database) -> list[tuple[str, str, str]]:
    with db.read() as conn:
        rows = conn.execute(
            select(messages.c.agent_id, messages.c.host_id, messages.c.kind).order_by(messages.c.seq)
        )
        return [(r.agent_id, r.host_id, r.kind) for r in rows]


def test_a_session_read_in_pieces_records_what_the_whole_file_does(
    db: Database, settings: Settings, tmp_path: Path
) -> None:
    data = TRANSCRIPT.read_bytes()
    state = tmp_path / ".copilot" / "session-state"
    live = state / SESSION / "events.jsonl"
    live.parent.mkdir(parents=True)
    live.write_bytes(b"")
    follower = build_follower(settings, db)
    bounds = [len(data) * k // 9 for k in range(1, 9)] + [len(data)]
    written = 0
    for bound in bounds:
        with live.open("ab") as out:
            out.write(data[written:bound])
        written = bound
        assert follower.follow(live).problem is None
    assert follower.follow(live).stored == 0
    assert log_files([state]) == [live]
    whole = [
        (r.agent_id, str(r.message.host_id), r.message.kind.value)
        for r in read_records(live, "auto", None, 1 << 20)
    ]
    assert {agent for agent, _, _ in whole} == {SESSION}  # the session folder names the agent
    assert len(whole) == 37  # 1 user, 1 system, 1 assistant, 17 calls, 17 results (test_copilot_fixture)
    assert _stored(db) == whole
    kinds = [kind for _, _, kind in _stored(db)]
    assert (kinds.count("tool_call"), kinds.count("tool_result"), kinds.count("tool")) == (17, 17, 0)
