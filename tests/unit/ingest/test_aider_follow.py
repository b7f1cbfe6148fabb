"""`watch` over an aider chat history as aider appends to it, on SQLite and PostgreSQL: the real history
in the corpora's project-fixtures/aider written in pieces (between aider's writes, and mid-line) records exactly what
importing the whole file does, and nothing twice."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import select

from summarizer.composition.follow import build_follower
from summarizer.ingest.reader import read_records
from summarizer.service.follow import is_log_name, log_files
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import messages
from tests.support.corpora import fixture_path
from tests.support.http_api import cli_settings

pytestmark = pytest.mark.usefixtures("corpora")

HISTORY = fixture_path("aider/.aider.chat.history.md")


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    return cli_settings(monkeypatch, tmp_path, db)


def _stored(db: Database) -> list[tuple[str, str, str]]:
    with db.read() as conn:
        rows = conn.execute(
            select(messages.c.agent_id, messages.c.host_id, messages.c.kind).order_by(messages.c.seq)
        )
        return [(r.agent_id, r.host_id, r.kind) for r in rows]


def test_a_history_appended_to_records_what_the_whole_file_does(
    db: Database, settings: Settings, tmp_path: Path
) -> None:
    data = HISTORY.read_bytes()
    project = tmp_path / "shop"
    project.mkdir()
    live = project / ".aider.chat.history.md"
    # aider writes each note, prompt and reply whole: cut before some of its notes, and inside lines too.
    notes = [m.start() + 1 for m in re.finditer(rb"\n> [^\n]*  \n", data)]
    cuts = sorted({*notes[:: len(notes) // 8], len(data) // 3 + 5, len(data) // 2 + 11, len(data)})
    follower = build_follower(settings, db)
    assert log_files([project]) == []
    written = 0
    for cut in cuts:
        with live.open("ab") as out:
            out.write(data[written:cut])
        written = cut
        assert log_files([project]) == [live]
        assert is_log_name(str(live))  # the path watchfiles hands over
        done = follower.follow(live)
        assert done.problem is None
    assert follower.follow(live).stored == 0  # unchanged: nothing read again, nothing stored
    whole = [
        (r.agent_id, str(r.message.host_id), r.message.kind.value)
        for r in read_records(live, "auto", None, 1 << 20)
    ]
    assert {agent for agent, _, _ in whole} == {"shop"}
    assert len(whole) == 676  # 19 + 23 + 1 + 40 + 255 + 338, as counted in test_aider_fixture
    assert _stored(db) == whole
