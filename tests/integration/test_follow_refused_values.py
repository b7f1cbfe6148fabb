"""A followed log holding a value PostgreSQL refuses: that file's failure alone, never the watcher's.
Nothing of the refused read is stored, its position stays where the last commit left it, the reason is one
line naming the file (never the statement or the values), the file is passed over until it changes, and
the other files are recorded.

Identifiers too long for their columns are fitted before they reach the database (`fit_identifiers`), so
the refusal is provoked by turning the fitting off for the test (`unfitted`): a 306-character tool call id
then stands for a value the fitting does not cover, and PostgreSQL really refuses it (`VARCHAR(200)`). On
SQLite, with the fitting as it ships, the same file is stored whole, its id fitted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from summarizer.composition.follow import build_follower
from summarizer.domain.errors import ValueRefused
from summarizer.domain.identifiers import fit_identifier
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import followed_files, messages
from tests.support.corpora import fixture_path
from tests.support.http_api import cli_settings

pytestmark = pytest.mark.usefixtures("corpora")

CLAUDE = fixture_path("claude_code/compact_after_rewind.jsonl")
LONG_ID = "toolu_" + "q" * 300


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    return cli_settings(monkeypatch, tmp_path, db)


def unfitted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Store identifiers as they come: a long one simulates a value the fitting does not cover, which
    PostgreSQL refuses."""
    monkeypatch.setattr(
        "summarizer.storage.sql.stores.conversations.fit_identifiers", lambda message: message
    )


def _session(name: str) -> bytes:
    return CLAUDE.read_bytes().replace(b'"sessionId":"s1"', f'"sessionId":"{name}"'.encode())


def _with_long_call_id(name: str) -> bytes:
    """The fixture as session `name`, its second line (an answer) also calling a tool by a 306-character
    id."""
    lines = _session(name).decode().splitlines()
    answer = json.loads(lines[1])
    answer["message"]["content"].append({"type": "tool_use", "id": LONG_ID, "name": "Bash", "input": {}})
    lines[1] = json.dumps(answer)
    return ("\n".join(lines) + "\n").encode()


def _count(db: Database, agent: str) -> int:
    with db.read() as conn:
        return int(conn.execute(select(func.count()).where(messages.c.agent_id == agent)).scalar_one())


def _call_ids(db: Database, agent: str) -> list[str | None]:
    with db.read() as conn:
        query = select(messages.c.tool_call_id).where(
            messages.c.agent_id == agent, messages.c.tool_call_id.is_not(None)
        )
        return list(conn.execute(query).scalars())


def _positions(db: Database) -> int:
    with db.read() as conn:
        return int(conn.execute(select(func.count()).select_from(followed_files)).scalar_one())


def test_a_value_the_database_refuses_fails_that_file_alone(
    db: Database, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sqlite = db.url.get_backend_name() == "sqlite"
    if not sqlite:
        unfitted(monkeypatch)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(_with_long_call_id("bad"))
    good = tmp_path / "good.jsonl"
    good.write_bytes(_session("good"))
    follower = build_follower(settings, db)
    done = {d.path.name: d for d in follower.follow_all([bad, good])}
    assert not done["good.jsonl"].failed
    assert _count(db, "good") == done["good.jsonl"].stored > 0
    if sqlite:  # the fitting as it ships: the same file is stored whole, its id fitted
        assert not done["bad.jsonl"].failed
        assert _count(db, "bad") == done["bad.jsonl"].stored > 0
        assert _call_ids(db, "bad") == [fit_identifier(LONG_ID)]
        return

    refused = done["bad.jsonl"]
    assert refused.failed
    assert refused.stored == 0
    assert refused.problem == (
        f"{bad}: the database refused a value: value too long for type character varying(200); "
        "nothing of it was stored"
    )
    assert _count(db, "bad") == 0  # nothing half-written: the messages and the position are one commit
    assert _positions(db) == 1  # the good file's only

    again = follower.follow(bad)  # unchanged: passed over without a word
    assert (again.failed, again.problem, again.stored) == (True, None, 0)

    with bad.open("ab") as out:  # changed: tried again from its place (the start), refused again
        out.write(_session("bad").splitlines(keepends=True)[-1])
    retried = follower.follow(bad)
    assert retried.failed
    assert retried.problem is not None
    assert "refused a value" in retried.problem
    assert _count(db, "bad") == 0


def test_recording_refused_raises_a_value_refused_naming_no_value(
    db: Database, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every recording path (here `record_many`, as `ingest` stores) refuses alike, its reason one line."""
    from summarizer import composition

    sqlite = db.url.get_backend_name() == "sqlite"
    if not sqlite:
        unfitted(monkeypatch)
    store = composition.build_summarizer(settings, db)
    call = NewMessage(Kind.TOOL_CALL, "", tool_call_id=LONG_ID, name="Bash", input={})
    batch = [("r", NewMessage(Kind.USER, "go")), ("r", call)]
    if sqlite:  # the fitting as it ships: stored, its id fitted
        assert store.record_many(batch).stored == 2
        assert _call_ids(db, "r") == [fit_identifier(LONG_ID)]
        return
    with pytest.raises(ValueRefused) as refused:
        store.record_many(batch)
    said = str(refused.value)
    assert said.startswith("the database refused a value: value too long")
    assert "\n" not in said
    assert "qqqq" not in said
    assert "INSERT" not in said
    assert _count(db, "r") == 0
