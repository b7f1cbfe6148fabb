"""`summarizer ingest` on real public files of each format, and on input that must be refused cleanly.

Every test runs on SQLite and on PostgreSQL: what the parser lets through must also fit both databases.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from tests.acceptance.cli import run_cli
from tests.support.corpora import fixture_path
from tests.support.services import copy_sqlite_template

FIXTURES = fixture_path("")
CLAUDE_CODE = fixture_path("claude_code")


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield copy_sqlite_template(sqlite_template, tmp_path / "cli.db")
        return
    pg: Database = request.getfixturevalue("pg")  # emptied for this test
    yield pg.url.render_as_string(hide_password=False)


@pytest.fixture
def env(database_url: str) -> dict[str, str]:
    return {"SUMMARIZER_DATABASE_URL": database_url, "SUMMARIZER_WINDOW_TOKENS": "0"}


def stored(env: dict[str, str]) -> int:
    db = connect_database(env["SUMMARIZER_DATABASE_URL"])
    try:
        with db.read() as conn:
            return int(conn.execute(text("SELECT count(*) FROM messages")).scalar_one())
    finally:
        db.dispose()


def context(env: dict[str, str], agent: str) -> list[dict[str, object]]:
    result = run_cli("context", agent, "--json", env=env)
    assert result.returncode == 0, result.stderr
    messages: list[dict[str, object]] = json.loads(result.stdout)["messages"]
    return messages


@pytest.mark.usefixtures("corpora")
@pytest.mark.parametrize(
    ("fixture", "fmt", "agent", "count"),
    [
        (CLAUDE_CODE / "compact_after_rewind.jsonl", "claude-code", "s1", 13),  # 12 messages, 1 rewind marker
        (
            CLAUDE_CODE / "sidechain_integrated.jsonl",
            "claude-code",
            "88a8d761-7b9a-4bf1-a8ca-c1febe6bf358",
            3,
        ),
        (FIXTURES / "responses" / "weather_function_call.jsonl", "responses", "weather", 4),
        (FIXTURES / "responses" / "reasoning_response.json", "responses", "joke", 1),
        (FIXTURES / "sharegpt" / "glaive_toolcall_en_demo.json", "sharegpt", "glaive/1", 12),
    ],
)
def test_each_public_file_ingests_as_published_and_again_stores_nothing(
    env: dict[str, str], fixture: Path, fmt: str, agent: str, count: int
) -> None:
    agent_option = [] if fmt == "claude-code" else ["--agent", agent.split("/")[0]]
    first = run_cli("ingest", str(fixture), "--format", fmt, *agent_option, env=env)
    assert first.returncode == 0, first.stderr
    assert f"stored {count} message(s), skipped 0" in first.stdout
    again = run_cli("ingest", str(fixture), "--format", fmt, *agent_option, env=env)
    assert again.returncode == 0, again.stderr
    assert f"stored 0 message(s), skipped {count} already stored" in again.stdout
    assert stored(env) == count
    assert context(env, agent)


@pytest.mark.usefixtures("corpora")
def test_claude_code_compaction_clears_the_window(env: dict[str, str]) -> None:
    result = run_cli(
        "ingest", str(CLAUDE_CODE / "compact_after_rewind.jsonl"), "--format", "claude-code", env=env
    )
    assert result.returncode == 0, result.stderr
    history = json.loads(run_cli("history", "s1", "--json", env=env).stdout)
    states = [e["state"] for e in history["exchanges"]]
    assert states == ["evicted"] * 4 + ["window"] * 2


@pytest.mark.usefixtures("corpora")
def test_a_kept_sidechain_with_an_unanswered_result_is_kept_as_activity_or_refused_when_strict(
    env: dict[str, str],
) -> None:
    path = CLAUDE_CODE / "sidechain_integrated.jsonl"
    args = ("ingest", str(path), "--format", "claude-code", "--sidechains", "agent")
    strict = run_cli(*args, "--strict", env=env)
    assert strict.returncode == 2
    assert strict.stderr.startswith(
        f"{path}:5: tool_result with tool_call_id 'toolu_011V1hetiJ3pC79EoLTY53Ni'"
    )
    assert stored(env) == 0
    result = run_cli(*args, env=env)
    assert result.returncode == 0, result.stderr
    assert "kept 1 tool result(s) whose call is not in the input as tool activity" in result.stderr
    assert f"warning: {path}:5: tool result for call 'toolu_011V1hetiJ3pC79EoLTY53Ni'" in result.stderr
    assert "stored 6 message(s)" in result.stdout


def _canonical(**fields: object) -> str:
    return json.dumps({"agent": "a", "kind": "user", "content": "hi", **fields}) + "\n"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (_canonical(tokens=2**31), "tokens must be <= 2147483647"),
        (_canonical(tokens=2**63), "tokens must be <= 2147483647"),
        ('{"agent": "a", "kind": "user", "content": "\\ud800"}\n', "unpaired surrogate escape in content"),
        (_canonical(created_at="9999-12-31T23:59:59-23:59"), "outside the supported range"),
        (_canonical(created_at="0001-01-01T00:00:00+05:00"), "outside the supported range"),
        (
            '{"agent": "a", "kind": "tool_call", "content": "", "tool_call_id": "c", "name": "n", "input": 1e400}\n',
            "the number 1e400 is too large to store",
        ),
    ],
)
def test_input_that_used_to_crash_is_a_clear_error_and_stores_nothing(
    env: dict[str, str], tmp_path: Path, line: str, reason: str
) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(_canonical() + line, encoding="utf-8")
    result = run_cli("ingest", str(path), "--strict", env=env)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"{path}:2: ")
    assert reason in result.stderr
    assert "Traceback" not in result.stderr
    assert stored(env) == 0
    tolerant = run_cli("ingest", str(path), env=env)
    assert tolerant.returncode == 0, tolerant.stderr
    assert f"warning: {path}:2: " in tolerant.stderr
    assert reason in tolerant.stderr
    assert "Traceback" not in tolerant.stderr
    assert stored(env) == 1


def test_a_missing_input_file_is_a_clear_error(env: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "nowhere.jsonl"
    result = run_cli("ingest", str(path), env=env)
    assert result.returncode == 2
    assert result.stderr.strip() == f"{path}: cannot read the input: No such file or directory"


def test_backward_timestamps_are_raised_and_counted_unless_strict(
    env: dict[str, str], tmp_path: Path
) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(
        _canonical(created_at="2025-01-01T10:00:00Z", id="1")
        + _canonical(kind="assistant", content="yo", created_at="2025-01-01T09:00:00Z", id="2")
    )
    strict = run_cli("ingest", str(path), "--strict-time", env=env)
    assert strict.returncode == 2
    assert strict.stderr.startswith(f"{path}:2: created_at 2025-01-01T09:00:00+00:00 is before")
    assert stored(env) == 0
    result = run_cli("ingest", str(path), env=env)
    assert result.returncode == 0, result.stderr
    assert "1 timestamp(s) raised to the previous message's" in result.stdout
    times = [m["created_at"] for m in context(env, "a")]
    assert times == ["2025-01-01T10:00:00+00:00", "2025-01-01T10:00:00+00:00"]


def test_queue_refuses_an_unknown_state(env: dict[str, str]) -> None:
    result = run_cli("queue", "--state", "bogus", env=env)
    assert result.returncode == 2
    assert "Invalid value for '--state': 'bogus' is not one of" in result.stderr


def test_flower_on_a_busy_port_says_so_in_one_line(env: dict[str, str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        flower_env = {**env, "SUMMARIZER_BROKER_URL": "redis://127.0.0.1:1/0"}
        result = run_cli(
            "flower", "--insecure", "--address", "127.0.0.1", "--port", str(port), env=flower_env
        )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        f"Error: cannot listen on 127.0.0.1:{port}: already in use (choose another with --port)"
    )
    assert "Traceback" not in result.stderr


@pytest.mark.usefixtures("corpora")
def test_several_files_are_read_before_anything_is_stored(env: dict[str, str], tmp_path: Path) -> None:
    codex = sorted((FIXTURES / "codex").glob("rollout-*.jsonl"))
    swe = FIXTURES / "swe_agent" / "swe-agent__test-repo-i1.traj"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(_canonical() + '{"kind": "user"}\n', encoding="utf-8")
    refused = run_cli("ingest", *map(str, codex), str(bad), "--strict", env=env)
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"{bad}:2: ")
    assert stored(env) == 0  # the good files before it were not stored either

    empty = tmp_path / "sub-agents-only.jsonl"
    empty.write_text(
        json.dumps(
            {
                "type": "user",
                "sessionId": "s",
                "uuid": "x",
                "isSidechain": True,
                "message": {"role": "user", "content": "hi"},
            }
        )
        + "\n",
        encoding="utf-8",
    )
    result = run_cli("ingest", *map(str, codex), str(swe), str(empty), env=env)
    assert result.returncode == 0, result.stderr
    for path, fmt in [(codex[0], "codex"), (codex[1], "codex"), (swe, "swe-agent"), (empty, "claude-code")]:
        assert f"{path}: format: {fmt} (" in result.stdout
    assert f"{empty}: skipped 1 sub-agent (sidechain) event(s)" in result.stdout
    assert f"error: no message found in {empty} (sub-agent events are skipped" in result.stderr
    assert "agents: 3;" in result.stdout
    assert stored(env) > 0


@pytest.mark.usefixtures("corpora")
def test_a_wrong_explicit_format_names_the_format_the_file_looks_like(env: dict[str, str]) -> None:
    codex = next((FIXTURES / "codex").glob("rollout-*.jsonl"))
    claude = CLAUDE_CODE / "compact_after_rewind.jsonl"
    nothing = run_cli("ingest", str(codex), "--format", "claude-code", env=env)
    assert nothing.returncode == 2  # every line of a type Claude Code does not write: skipped and named
    assert nothing.stderr.startswith(f"{codex}:1: 1 line(s) of unknown type 'session_meta' skipped")
    assert f"nothing could be read from {codex}" in nothing.stderr
    assert "looks like codex" in nothing.stderr
    assert "pass --format codex or leave --format out" in nothing.stderr
    refused = run_cli("ingest", str(claude), "--format", "canonical", env=env)
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"{claude}:1: unknown key 'type'")
    assert "looks like claude-code" in refused.stderr
    assert f"nothing could be read from {claude} (12 line(s) or item(s) skipped" in refused.stderr
    assert "Traceback" not in refused.stderr + nothing.stderr
    assert stored(env) == 0


@pytest.mark.usefixtures("corpora")
def test_every_real_fixture_imports_without_a_format_and_again_stores_nothing(
    env: dict[str, str],
) -> None:
    """The corpus of tests/unit/ingest/test_fixture_corpus.py through the command and the store: every file
    detected and stored whole (no warning), and a second import stores nothing."""
    from tests.unit.ingest.test_fixture_corpus import CORPUS, NEEDS_AGENT, path_of

    named = [str(path_of(name)) for name, fmt, *_ in CORPUS if fmt not in NEEDS_AGENT]
    unnamed = [str(path_of(name)) for name, fmt, *_ in CORPUS if fmt in NEEDS_AGENT]
    total = sum(sum(kinds.values()) for _, _, kinds, *_ in CORPUS)
    runs = [("ingest", *named), ("ingest", *unnamed, "--agent", "corpus")]
    first = [run_cli(*args, env=env) for args in runs]
    for result in first:
        assert result.returncode == 0, result.stderr
        assert "warning" not in result.stderr
    assert stored(env) == total
    for args in runs:
        again = run_cli(*args, env=env)
        assert again.returncode == 0, again.stderr
        assert "stored 0 message(s)" in again.stdout
    assert stored(env) == total


def _claude(kind: str, content: object, uuid: str, parent: str | None, second: int) -> dict[str, object]:
    return {
        "type": kind,
        "sessionId": "cc2",
        "uuid": uuid,
        "parentUuid": parent,
        "timestamp": f"2025-11-02T10:00:{second:02d}Z",
        "message": {"role": kind, "content": content},
    }


def test_a_claude_code_2x_session_is_detected_and_its_odd_lines_do_not_refuse_it(
    env: dict[str, str], tmp_path: Path
) -> None:
    calls = [{"type": "tool_use", "id": c, "name": "Read", "input": {"file_path": c}} for c in ("t1", "t2")]
    lines = [
        {"type": "file-history-snapshot", "messageId": "m1", "snapshot": {}, "isSnapshotUpdate": False},
        _claude("user", "read both files", "u1", None, 1),
        _claude("assistant", calls[:1], "a1", "u1", 2),
        _claude("assistant", calls[1:], "a2", "a1", 3),
        _claude("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "one"}], "r1", "a1", 4),
        _claude("user", [{"type": "tool_result", "tool_use_id": "t2", "content": "two"}], "r2", "a2", 5),
        _claude("user", [{"type": "tool_result", "tool_use_id": "t0", "content": "stale"}], "r0", "r2", 6),
        _claude("user", [{"type": "text", "text": "[Request interrupted by user]"}], "i1", "r0", 7),
        _claude("user", "now summarise them", "u2", "i1", 8),
        _claude("assistant", [{"type": "text", "text": "Both say hello."}], "a3", "u2", 9),
    ]
    session = tmp_path / "cc2.jsonl"
    session.write_text("".join(json.dumps(line) + "\n" for line in lines) + "{broken\n", encoding="utf-8")
    result = run_cli("ingest", str(session), env=env)
    assert result.returncode == 0, result.stderr
    assert "format: claude-code (" in result.stdout
    assert "stored 9 message(s)" in result.stdout
    assert f"warning: {session}:7: tool result for call 't0'" in result.stderr
    assert f"warning: {session}:11: invalid JSON" in result.stderr
    history = json.loads(run_cli("history", "cc2", "--json", env=env).stdout)
    assert len(history["exchanges"]) == 2  # the interrupt opened none
    window = context(env, "cc2")
    kinds = [m["kind"] for m in window]
    assert kinds == [
        "user",
        "tool_call",
        "tool_call",
        "tool_result",
        "tool_result",
        "tool",
        "mark",
        "user",
        "assistant",
    ]  # no rewind marker; the interrupt a mark (metadata: 0 tokens, never in a summarizer prompt)
    assert window[6]["content"] == "[Request interrupted by user]"
    strict = run_cli("ingest", str(session), "--strict", env=env)
    assert strict.returncode == 2
    assert strict.stderr.startswith(f"{session}:11: invalid JSON")


def test_a_file_nothing_can_be_read_from_is_an_error_and_the_others_are_stored(
    env: dict[str, str], tmp_path: Path
) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(_canonical(), encoding="utf-8")
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text(_canonical()[:-3] + "\n" + "{also broken\n", encoding="utf-8")
    result = run_cli("ingest", str(good), str(garbage), "--format", "canonical", env=env)
    assert result.returncode == 2
    assert f"{garbage}:1: invalid JSON" in result.stderr
    assert f"nothing could be read from {garbage} (2 line(s) or item(s) skipped" in result.stderr
    assert "stored 1 message(s)" in result.stdout
    assert stored(env) == 1
