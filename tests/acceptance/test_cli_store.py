"""The conversation-store commands as a user runs them: ingest, history, context, agent, db."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.acceptance.cli import run_cli


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {
        "SUMMARIZER_DATABASE_URL": f"sqlite:///{(tmp_path / 'cli.db').as_posix()}",
        "SUMMARIZER_WINDOW_TOKENS": "70",
        "SUMMARIZER_BATCH_SIZE": "2",
    }


def lines(*records: dict[str, object]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def chat(agent: str = "bot", n: int = 4) -> str:
    out: list[dict[str, object]] = [{"agent": agent, "kind": "system", "content": "Be brief.", "tokens": 5}]
    for i in range(n):
        out += [
            {"agent": agent, "kind": "user", "content": f"Step {i}", "tokens": 10, "id": f"u{i}"},
            {
                "agent": agent,
                "kind": "tool_call",
                "content": "",
                "tool_call_id": f"c{i}",
                "name": "bash",
                "input": {"cmd": "ls"},
                "tokens": 5,
            },
            {"agent": agent, "kind": "tool_result", "content": "a.txt", "tool_call_id": f"c{i}", "tokens": 5},
            {"agent": agent, "kind": "assistant", "content": f"Did {i}", "tokens": 10},
        ]
    return lines(*out)


def migrated(env: dict[str, str]) -> None:
    result = run_cli("db", "upgrade", env=env)
    assert result.returncode == 0, result.stderr


def test_ingest_then_history_and_context_json(env: dict[str, str], tmp_path: Path) -> None:
    migrated(env)
    path = tmp_path / "chat.jsonl"
    path.write_text(chat())
    result = run_cli("ingest", str(path), env=env)
    assert result.returncode == 0, result.stderr
    assert "stored 17 message(s)" in result.stdout
    history = json.loads(run_cli("history", "bot", "--json", env=env).stdout)
    assert [e["state"] for e in history["exchanges"]] == ["evicted", "evicted", "window", "window"]
    context = json.loads(run_cli("context", "bot", "--json", env=env).stdout)
    assert context["summary_version"] is None
    assert [m["kind"] for m in context["messages"][:2]] == ["system", "user"]
    assert {"id", "kind", "content", "tool_call_id", "name", "input", "created_at", "tokens"} <= set(
        context["messages"][0]
    )


def test_ingest_from_stdin_with_agent_option_and_resend_is_skipped(env: dict[str, str]) -> None:
    migrated(env)
    body = "\n".join(line.replace('"agent": "bot", ', "") for line in chat().splitlines()) + "\n"
    first = run_cli("ingest", "-", "--agent", "piped", env=env, stdin=body)
    assert first.returncode == 0, first.stderr
    again = run_cli("ingest", "-", "--agent", "piped", env=env, stdin=body)
    assert again.returncode == 0, again.stderr
    # 17 lines: the user lines carry ids, the others get derived ones, so nothing is stored twice
    assert "stored 0 message(s), skipped 17 already stored" in again.stdout


def test_bad_line_aborts_with_file_line_reason_exit_2_and_stores_nothing(
    env: dict[str, str], tmp_path: Path
) -> None:
    migrated(env)
    good = chat(n=2).splitlines()
    bad = [*good[:3], json.dumps({"agent": "bot", "kind": "usr", "content": "typo"}), *good[3:]]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(bad) + "\n")
    result = run_cli("ingest", str(path), "--strict", env=env)
    assert result.returncode == 2
    assert result.stderr.strip().startswith(f"{path}:4: unknown kind 'usr'")
    history = run_cli("history", "bot", env=env)
    assert history.returncode == 1
    assert "unknown agent 'bot'" in history.stderr


def test_stateful_error_reports_file_line_too(env: dict[str, str], tmp_path: Path) -> None:
    migrated(env)
    path = tmp_path / "orphan.jsonl"
    path.write_text(
        lines(
            {"agent": "bot", "kind": "user", "content": "hi"},
            {"agent": "bot", "kind": "tool_result", "content": "x", "tool_call_id": "missing"},
        )
    )
    result = run_cli("ingest", str(path), "--strict", env=env)
    assert result.returncode == 2
    assert result.stderr.startswith(f"{path}:2: tool_result with tool_call_id 'missing'")


def test_agent_budget_override_applies(env: dict[str, str], tmp_path: Path) -> None:
    migrated(env)
    assert run_cli("agent", "create", "big", "--budget", "0", env=env).returncode == 0
    path = tmp_path / "chat.jsonl"
    path.write_text(chat(agent="big"))
    assert run_cli("ingest", str(path), env=env).returncode == 0
    history = json.loads(run_cli("history", "big", "--json", env=env).stdout)
    assert history["budget_tokens"] == 0
    assert all(e["state"] == "window" for e in history["exchanges"])
    bad = run_cli("agent", "budget", "big", "lots", env=env)
    assert bad.returncode == 2
    assert "expected a whole number of tokens or 'default'" in bad.stderr


def test_invalid_setting_names_the_variable(env: dict[str, str]) -> None:
    result = run_cli("history", "bot", env={**env, "SUMMARIZER_WINDOW_TOKENS": "lots"})
    assert result.returncode == 2
    assert "SUMMARIZER_WINDOW_TOKENS" in result.stderr


def test_db_downgrade_and_upgrade(env: dict[str, str]) -> None:
    migrated(env)
    down = run_cli("db", "downgrade", "base", env=env)
    assert down.returncode == 0, down.stderr
    assert "database at base" in down.stdout
    assert run_cli("db", "current", env=env).stdout.startswith("base")
    migrated(env)
    assert run_cli("db", "current", env=env).stdout.strip() != "base (no schema)"
