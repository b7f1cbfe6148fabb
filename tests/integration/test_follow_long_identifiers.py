"""A Claude Code session calling a tool by a 306-character id, on SQLite and PostgreSQL alike: followed and
ingested whole, the id stored fitted to its 200-character column (the same on both databases), the call
and its result still paired by it, and the same file read again storing nothing twice."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from summarizer.cli.main import cli
from summarizer.composition.follow import build_follower
from summarizer.domain.identifiers import fit_identifier
from summarizer.ingest.reader import read_records
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import messages
from tests.support.corpora import fixture_path
from tests.support.http_api import cli_settings

pytestmark = pytest.mark.usefixtures("corpora")

CLAUDE = fixture_path("claude_code/compact_after_rewind.jsonl")
LONG_ID = "toolu_" + "q" * 300


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    return cli_settings(monkeypatch, tmp_path, db)


def long_call_session(session: str) -> bytes:
    """The fixture as session `session`, its last answer also calling a tool by a 306-character id, and a
    last line carrying that call's result under the same id."""
    lines = CLAUDE.read_text().replace('"sessionId":"s1"', f'"sessionId":"{session}"').splitlines()
    answer = json.loads(lines[-1])
    call = {"type": "tool_use", "id": LONG_ID, "name": "Bash", "input": {"command": "ls"}}
    answer["message"]["content"].append(call)
    lines[-1] = json.dumps(answer)
    result = {
        "type": "user",
        "timestamp": "2025-07-01T10:42:00.000Z",
        "parentUuid": answer["uuid"],
        "isSidechain": False,
        "userType": "external",
        "cwd": "/tmp",
        "sessionId": session,
        "version": "2.1.0",
        "uuid": "r1",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": LONG_ID, "content": "ok"}],
        },
    }
    lines.append(json.dumps(result))
    return ("\n".join(lines) + "\n").encode()


def stored_rows(db: Database) -> list[tuple[str, str, str | None]]:
    with db.read() as conn:
        query = select(messages.c.agent_id, messages.c.kind, messages.c.tool_call_id).order_by(
            messages.c.agent_id, messages.c.seq
        )
        return [(r.agent_id, r.kind, r.tool_call_id) for r in conn.execute(query)]


def pairs(db: Database) -> list[tuple[str, str | None]]:
    return [(kind, call) for _, kind, call in stored_rows(db) if kind in ("tool_call", "tool_result")]


def test_a_long_tool_call_id_is_followed_whole_and_still_pairs(
    db: Database, settings: Settings, tmp_path: Path
) -> None:
    log = tmp_path / "long.jsonl"
    log.write_bytes(long_call_session("long"))
    whole = read_records(log, "claude-code", None, 1_000_000)
    assert [r.message.tool_call_id for r in whole if r.message.tool_call_id] == [LONG_ID, LONG_ID]

    follower = build_follower(settings, db)
    done = follower.follow(log)
    assert (done.failed, done.problem) == (False, None)
    assert done.stored == len(whole) == len(stored_rows(db))
    fitted = fit_identifier(LONG_ID)
    assert len(fitted) == 200
    assert pairs(db) == [("tool_call", fitted), ("tool_result", fitted)]

    assert follower.follow(log).stored == 0  # unchanged: nothing new
    again = build_follower(settings, db).follow(log)  # another watcher over the same database
    assert again.stored == 0
    assert len(stored_rows(db)) == len(whole)


def test_a_long_tool_call_id_is_ingested_whole_and_again_stores_nothing(
    db: Database, settings: Settings, tmp_path: Path
) -> None:
    log = tmp_path / "long.jsonl"
    log.write_bytes(long_call_session("long"))
    total = len(read_records(log, "claude-code", None, 1_000_000))
    assert ingest(log) == (total, 0)
    assert ingest(log) == (0, total)  # a re-sent message with a fitted id is recognised
    assert len(stored_rows(db)) == total
    fitted = fit_identifier(LONG_ID)
    assert pairs(db) == [("tool_call", fitted), ("tool_result", fitted)]

    followed = build_follower(settings, db).follow(log)  # then followed: the same messages, none twice
    assert not followed.failed
    assert followed.stored == 0
    assert len(stored_rows(db)) == total


def ingest(path: Path) -> tuple[int, int]:
    result = CliRunner().invoke(cli, ["ingest", str(path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    counts = re.search(r"stored (\d+) message\(s\), skipped (\d+)", result.output)
    assert counts, result.output
    return int(counts[1]), int(counts[2])
