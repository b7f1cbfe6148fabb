"""Following logs as they are written, on SQLite and PostgreSQL: a file read in pieces records exactly what
the whole file does (the same messages, the same ids), a partial last line waits, a rewritten file is read
again without doubling, and the position moves only with the messages it covers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from summarizer.composition.follow import build_follower
from summarizer.domain.kinds import Kind
from summarizer.ingest.reader import read_records
from summarizer.service.follow import Follower
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import followed_files, messages
from tests.support.corpora import fixture_path
from tests.support.http_api import cli_settings
from tests.support.statements import counting_statements

pytestmark = pytest.mark.usefixtures("corpora")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CLAUDE = fixture_path("claude_code/compact_after_rewind.jsonl")
CODEX = fixture_path("codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl")


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    return cli_settings(monkeypatch, tmp_path, db)


def _stored(db: Database) -> list[tuple[str, str, str]]:
    with db.read() as conn:
        rows = conn.execute(
            select(messages.c.agent_id, messages.c.host_id, messages.c.kind).order_by(
                messages.c.agent_id, messages.c.seq
            )
        )
        return [(r.agent_id, r.host_id, r.kind) for r in rows]


def _whole(source: Path, fmt: str) -> list[tuple[str, str, str]]:
    records = read_records(source, fmt, None, 1_000_000)
    return [(r.agent_id, str(r.message.host_id), r.message.kind.value) for r in records]


@pytest.mark.parametrize(("source", "fmt", "cuts"), [(CLAUDE, "claude-code", 5), (CODEX, "codex", 7)])
def test_a_log_read_in_pieces_records_what_the_whole_file_does(
    db: Database, settings: Settings, tmp_path: Path, source: Path, fmt: str, cuts: int
) -> None:
    data = source.read_bytes()
    live = tmp_path / "live.jsonl"
    live.write_bytes(b"")
    follower = build_follower(settings, db)
    # Cut anywhere, mid-line included: each piece is appended as a writer would.
    bounds = [len(data) * k // cuts for k in range(1, cuts)] + [len(data)]
    written = 0
    for bound in bounds:
        with live.open("ab") as out:
            out.write(data[written:bound])
        written = bound
        follower.follow(live)
    assert _stored(db) == sorted(set(_whole(source, fmt)), key=_whole(source, fmt).index)
    assert follower.follow(live).stored == 0  # nothing new: nothing recorded


def test_a_partial_last_line_waits_for_its_end(db: Database, settings: Settings, tmp_path: Path) -> None:
    lines = CLAUDE.read_bytes().splitlines(keepends=True)
    live = tmp_path / "live.jsonl"
    live.write_bytes(b"".join(lines[:-1]) + lines[-1][:20])
    follower = build_follower(settings, db)
    first = follower.follow(live)
    assert first.skipped_lines == 0
    before = len(_stored(db))
    with live.open("ab") as out:
        out.write(lines[-1][20:])
    follower.follow(live)
    assert len(_stored(db)) == len(_whole(CLAUDE, "claude-code")) >= before


def test_a_rewritten_file_is_read_again_without_doubling(
    db: Database, settings: Settings, tmp_path: Path
) -> None:
    live = tmp_path / "live.jsonl"
    live.write_bytes(CLAUDE.read_bytes())
    follower = build_follower(settings, db)
    follower.follow(live)
    count = len(_stored(db))
    live.write_bytes(CODEX.read_bytes())  # the same path, another log: a rotation
    done = follower.follow(live)
    assert done.restarted
    assert len(_stored(db)) == count + len(_whole(CODEX, "codex"))
    assert {kind for _, _, kind in _stored(db)} >= {Kind.USER.value, Kind.TOOL_CALL.value}


def test_torn_and_foreign_lines_are_skipped_not_fatal(
    db: Database, settings: Settings, tmp_path: Path
) -> None:
    live = tmp_path / "live.jsonl"
    good = CLAUDE.read_bytes().splitlines(keepends=True)
    live.write_bytes(good[0] + b"{not json\n" + b"[1, 2]\n" + b"".join(good[1:]))
    done = build_follower(settings, db).follow(live)
    assert done.skipped_lines == 2
    assert len(_stored(db)) == len(_whole(CLAUDE, "claude-code"))


def test_one_agent_per_project_directory(db: Database, settings: Settings, tmp_path: Path) -> None:
    project = tmp_path / "-home-me-app"
    project.mkdir()
    (project / "one.jsonl").write_bytes(CLAUDE.read_bytes())
    follower: Follower = build_follower(settings, db, per="project")
    follower.follow(project / "one.jsonl")
    assert {agent for agent, _, _ in _stored(db)} == {"-home-me-app"}
    with db.read() as conn:
        assert conn.execute(select(func.count()).select_from(messages)).scalar_one() > 0


def test_a_gemini_cli_session_log_read_in_pieces(db: Database, settings: Settings, tmp_path: Path) -> None:
    from tests.unit.ingest.test_gemini_cli import MESSAGES, META

    data = "".join(json.dumps(x) + "\n" for x in [META, *MESSAGES]).encode()
    whole = tmp_path / "whole.jsonl"
    whole.write_bytes(data)
    live = tmp_path / "session-live.jsonl"
    live.write_bytes(b"")
    follower = build_follower(settings, db)
    for cut in (len(data) // 3, 2 * len(data) // 3, len(data)):
        live.write_bytes(data[:cut])
        follower.follow(live)
    assert _stored(db) == _whole(whole, "gemini-cli")


GEMINI_DOC = fixture_path("gemini_cli/gemini-cli-pomodoro-timer.json")
CLINE = FIXTURES / "cline" / "1769587302114" / "api_conversation_history.json"


@pytest.mark.parametrize(("source", "fmt"), [(GEMINI_DOC, "gemini-cli"), (CLINE, "cline")])
def test_a_json_document_log_rewritten_as_it_grows_records_each_message_once(
    db: Database, settings: Settings, tmp_path: Path, source: Path, fmt: str
) -> None:
    """Gemini CLI (before 0.39) and Cline rewrite one JSON document per session; each change is read
    whole and what is stored is skipped."""
    document = json.loads(source.read_text(encoding="utf-8"))
    listed = document["messages"] if isinstance(document, dict) else document
    live = tmp_path / ("tasks/1769587302114" if fmt == "cline" else "tmp/abc123/chats") / source.name
    live.parent.mkdir(parents=True)
    follower = build_follower(settings, db)
    for cut in (len(listed) // 3, 2 * len(listed) // 3, len(listed)):
        part = {**document, "messages": listed[:cut]} if isinstance(document, dict) else listed[:cut]
        live.write_text(json.dumps(part, indent=2), encoding="utf-8")
        follower.follow(live)
    assert follower.follow(live).stored == 0  # unchanged: nothing read, nothing stored
    expected = _whole(source, fmt)
    if fmt == "cline":  # the agent is the task folder's name, here as in the fixture's
        assert {a for a, _, _ in expected} == {"1769587302114"}
    assert _stored(db) == expected


def test_a_json_file_of_no_log_format_is_passed_over_quietly(
    db: Database, settings: Settings, tmp_path: Path
) -> None:
    settings_file = tmp_path / "settings.json"
    settings_file.write_text('{"theme": "dark", "hooks": {}}', encoding="utf-8")
    done = build_follower(settings, db).follow(settings_file)
    assert (done.stored, done.problem) == (0, None)
    assert _stored(db) == []


def test_the_project_a_log_belongs_to_is_read_from_its_path(
    db: Database, settings: Settings, tmp_path: Path
) -> None:
    follower = build_follower(settings, db, per="project")
    assert follower.agent_for(tmp_path / "abc123" / "chats" / "session-1.json") == "abc123"
    assert follower.agent_for(tmp_path / "-home-me-app" / "s.jsonl") == "-home-me-app"
    assert (
        follower.agent_for(tmp_path / "-home-me-app" / "s1" / "subagents" / "agent-a1.jsonl")
        == "-home-me-app"
    )
    assert follower.agent_for(tmp_path / "2026" / "02" / "23" / "rollout-x.jsonl") is None  # its session
    assert follower.agent_for(tmp_path / "tasks" / "17" / "api_conversation_history.json") is None


def test_a_file_that_fails_is_reported_once_and_tried_again_when_it_changes(
    db: Database, settings: Settings, tmp_path: Path
) -> None:
    live = tmp_path / "live.jsonl"
    live.write_text('{"foo": 1}\n')  # no log format
    follower = build_follower(settings, db)
    first = follower.follow(live)
    assert first.failed
    assert first.problem is not None
    assert "live.jsonl" in first.problem
    again = follower.follow(live)  # unchanged: passed over without a word
    assert (again.failed, again.problem) == (True, None)
    live.write_bytes(CLAUDE.read_bytes())  # changed: read again, and now it is a transcript
    mended = follower.follow(live)
    assert not mended.failed
    assert mended.stored == len(_whole(CLAUDE, "claude-code"))


def test_a_reader_error_fails_that_file_alone(db: Database, settings: Settings, tmp_path: Path) -> None:
    nested = tmp_path / "nested.jsonl"
    nested.write_text('{"type": "user", "sessionId": "n", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    digits = tmp_path / "digits.jsonl"
    digits.write_text('{"type": "user", "sessionId": "d", "n": ' + "7" * 5000 + "}\n")
    long_id = tmp_path / "long.jsonl"
    long_id.write_bytes(
        CLAUDE.read_bytes().replace(b'"sessionId":"s1"', b'"sessionId":"' + b"x" * 250 + b'"')
    )
    good = tmp_path / "good.jsonl"
    good.write_bytes(CLAUDE.read_bytes())
    done = {d.path.name: d for d in build_follower(settings, db).follow_all([nested, digits, long_id, good])}
    assert done["long.jsonl"].failed
    assert "over the 200 allowed" in str(done["long.jsonl"].problem)
    for name in ("nested.jsonl", "digits.jsonl", "long.jsonl"):
        assert done[name].stored == 0
        assert "\n" not in (done[name].problem or "")
    assert done["good.jsonl"].stored == len(_whole(CLAUDE, "claude-code"))


def test_a_first_line_of_any_length_is_read(db: Database, settings: Settings, tmp_path: Path) -> None:
    lines = CLAUDE.read_bytes().splitlines(keepends=True)
    first = json.loads(lines[0])
    first["message"]["content"].append({"type": "text", "text": "pasted " + "x" * 200_000})
    live = tmp_path / "live.jsonl"
    live.write_bytes(json.dumps(first).encode() + b"\n" + b"".join(lines[1:]))
    assert len(live.read_bytes().splitlines()[0]) > 1 << 16
    done = build_follower(settings, db).follow(live)
    assert (done.failed, done.problem) == (False, None)
    assert done.stored == len(_whole(live, "claude-code"))


def test_a_json_document_log_over_the_size_limit_is_refused_unread(
    db: Database, settings: Settings, tmp_path: Path
) -> None:
    live = tmp_path / "tmp" / "abc123" / "chats" / GEMINI_DOC.name
    live.parent.mkdir(parents=True)
    live.write_bytes(GEMINI_DOC.read_bytes())
    limit = GEMINI_DOC.stat().st_size - 1
    follower = build_follower(settings.model_copy(update={"follow_max_document_bytes": limit}), db)
    done = follower.follow(live)
    assert done.failed
    assert "SUMMARIZER_FOLLOW_MAX_DOCUMENT_BYTES" in str(done.problem)
    assert _stored(db) == []
    with db.read() as conn:
        assert conn.execute(select(func.count()).select_from(followed_files)).scalar_one() == 0
    assert build_follower(settings, db).follow(live).stored == len(_whole(GEMINI_DOC, "gemini-cli"))


def test_a_document_whose_last_message_changed_records_the_rest(
    db: Database, settings: Settings, tmp_path: Path
) -> None:
    from tests.unit.ingest.test_gemini_cli import MESSAGES, META

    live = tmp_path / "tmp" / "abc123" / "chats" / "session-1.json"
    live.parent.mkdir(parents=True)
    turn = {"id": "m9", "timestamp": "2025-10-18T14:59:00.000Z", "type": "gemini", "content": "Half"}
    live.write_text(json.dumps({**META, "messages": [*MESSAGES, turn]}))
    follower = build_follower(settings, db)
    assert not follower.follow(live).failed
    before = _stored(db)
    later = {"id": "m10", "timestamp": "2025-10-18T15:00:00.000Z", "type": "user", "content": "Thanks"}
    live.write_text(
        json.dumps({**META, "messages": [*MESSAGES, {**turn, "content": "Half, then whole"}, later]})
    )
    with counting_statements(db) as seen:
        done = follower.follow(live)
    assert (done.failed, done.stored) == (False, 1)
    assert _stored(db)[: len(before)] == before
    assert sum("messages.host_id IN" in s for s in seen) == 1  # the stored ids are looked up once


def test_a_long_project_name_makes_an_agent_id_within_the_limit(
    db: Database, settings: Settings, tmp_path: Path
) -> None:
    follower = build_follower(settings, db, per="project")
    long_a, long_b = "-home-me-" + "a" * 230, "-home-me-" + "a" * 229 + "b"
    agent_a = follower.agent_for(tmp_path / long_a / "s.jsonl")
    agent_b = follower.agent_for(tmp_path / long_b / "s.jsonl")
    assert agent_a is not None
    assert agent_b is not None
    assert len(agent_a) == len(agent_b) == 200
    assert agent_a != agent_b
    assert agent_a.startswith("-home-me-aaa")


def test_a_gemini_document_larger_than_the_part_detection_reads_is_still_refused_with_a_warning(
    db: Database, settings: Settings, tmp_path: Path
) -> None:
    document = json.loads(GEMINI_DOC.read_text(encoding="utf-8"))
    copies = [{**m, "id": f"{m.get('id')}-{n}"} for n in range(40) for m in document["messages"]]
    live = tmp_path / "tmp" / "abc123" / "chats" / GEMINI_DOC.name
    live.parent.mkdir(parents=True)
    live.write_text(json.dumps({**document, "messages": copies}), encoding="utf-8")
    assert live.stat().st_size > 2 << 20  # beyond the first MiB that detection reads
    follower = build_follower(settings.model_copy(update={"follow_max_document_bytes": 1 << 20}), db)
    done = follower.follow(live)
    assert done.failed
    assert "gemini-cli document log" in str(done.problem)
    assert _stored(db) == []
