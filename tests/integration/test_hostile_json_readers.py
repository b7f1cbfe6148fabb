"""Hostile JSON (a 5,000-digit integer, 100,000 levels of nesting) on both databases, through every way
JSON comes in: an HTTP body answers 422 with what and where, `summarizer ingest` says FILE:LINE: reason and
exits 2 (with --strict; without, it skips the line and says why), the hook says why on stderr; never a 500, never a traceback, and nothing is stored."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from sqlalchemy import func, select

from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import messages
from tests.acceptance.cli import run_cli
from tests.support.http_api import api_client, hermetic_settings

HUGE = "7" * 5000
DEEP = "[" * 100_000 + "]" * 100_000
GOOD = '{"kind": "user", "content": "hello"}'
BODIES = {
    "huge integer": '{"messages": [' + GOOD + ', {"kind": "user", "content": "x", "tokens": ' + HUGE + "}]}",
    "deep nesting": '{"messages": ['
    + GOOD
    + ', {"kind": "tool_call", "content": "", "input": '
    + DEEP
    + "}]}",
    "deep body": DEEP,
}
REASONS = {
    "huge integer": "an integer of more than 4300 digits (5000)",
    "deep nesting": "nested deeper than 100 levels",
    "deep body": "nested deeper than 100 levels",
}


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    url = db.url.render_as_string(hide_password=False)
    monkeypatch.setenv("SUMMARIZER_DATABASE_URL", url)
    monkeypatch.setenv("SUMMARIZER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SUMMARIZER_LLM", "fake")
    return hermetic_settings(monkeypatch, tmp_path, database_url=url)


def _stored(db: Database) -> int:
    with db.read() as conn:
        return int(conn.execute(select(func.count()).select_from(messages)).scalar_one())


@pytest.mark.parametrize("case", list(BODIES))
def test_an_http_body_answers_422_with_what_and_where(settings: Settings, db: Database, case: str) -> None:
    client = api_client(db, settings)
    answer = client.post(
        "/v1/agents/hostile/messages", content=BODIES[case], headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 422, answer.text
    problem = answer.json()
    assert problem["where"] == "body"
    assert REASONS[case] in problem["reason"]
    assert _stored(db) == 0


def _ingest(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "SUMMARIZER_DATABASE_URL": settings.resolved_database_url(),
        "SUMMARIZER_DATA_DIR": str(settings.data_dir),
    }
    return run_cli("ingest", *args, "--agent", "hostile", env=env)


@pytest.mark.parametrize("case", ["huge integer", "deep nesting"])
def test_ingest_says_file_line_reason(settings: Settings, db: Database, tmp_path: Path, case: str) -> None:
    line = BODIES[case].removeprefix('{"messages": [' + GOOD + ", ").removesuffix("]}")
    source = tmp_path / "chat.jsonl"
    source.write_text(f"{GOOD}\n{line}\n")
    strict = _ingest(settings, str(source), "--strict")
    assert strict.returncode == 2, strict.stderr
    assert f"{source}:2: invalid JSON: " in strict.stderr
    assert REASONS[case] in strict.stderr
    assert "Traceback" not in strict.stderr
    assert _stored(db) == 0  # all or nothing
    lenient = _ingest(settings, str(source))
    assert lenient.returncode == 0, lenient.stderr
    output = lenient.stdout + lenient.stderr
    assert f"{source}:2: invalid JSON: " in output  # the line is skipped, and said why
    assert REASONS[case] in output
    assert _stored(db) == 1


@pytest.mark.parametrize("fmt", ["auto", "canonical", "codex"])
def test_ingest_of_a_deeply_nested_document_is_a_clear_error(
    settings: Settings, db: Database, tmp_path: Path, fmt: str
) -> None:
    source = tmp_path / "chat.json"
    source.write_text(DEEP + "\n")
    result = _ingest(settings, str(source), "--format", fmt, "--strict")
    assert result.returncode == 2, result.stderr
    assert f"{source}" in result.stderr
    assert "Traceback" not in result.stderr
    assert _stored(db) == 0


@pytest.mark.parametrize("stdin", [DEEP, '{"session_id": ' + HUGE + "}"], ids=["deep", "huge"])
def test_hook_stdin_says_why_without_a_traceback(tmp_path: Path, stdin: str) -> None:
    env = {
        "SUMMARIZER_DATABASE_URL": f"sqlite:///{tmp_path / 'hook.db'}",
        "SUMMARIZER_DATA_DIR": str(tmp_path / "data"),
        "HOME": str(tmp_path),
    }
    result = run_cli("hook", "claude-code", env=env, stdin=stdin)
    assert result.returncode == 1  # a hook never answers 2: that would block the agent
    assert "summarizer hook:" in result.stderr
    assert "Traceback" not in result.stderr
