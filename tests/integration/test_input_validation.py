"""Bad input is refused before the database sees it, the same way by the HTTP API, the CLI and the Python
API: NUL and other control characters, invalid UTF-8, look-alike formatting characters, over-long ids,
integers past their column's range and absurd durations. A clear 4xx or exit 2, never a 500 or a trace."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from summarizer.cli.main import cli
from summarizer.composition import build_summarizer
from summarizer.domain.agent_ids import InvalidAgentId
from summarizer.storage.sql.database import Database
from tests.support.http_api import api_client, cli_settings, hermetic_settings

BAD_PATHS = [
    "/v1/agents/a%00b/context",
    "/v1/agents/a%00/summary",
    "/v1/agents/%00/history",
    "/v1/agents/a%FFb/context",
    "/v1/agents/a%C3/context",
    "/v1/agents/a%E2%80%AEb/context",  # RIGHT-TO-LEFT OVERRIDE: looks like another id
    "/v1/agents/a%09b/context",
    "/v1/agents/" + "x" * 201 + "/context",
    "/v1/agents/%20a/context",
    "/v1/agents?q=%00",
    "/v1/agents?prefix=a%00",
    "/v1/agents?after=%FF",
    "/v1/queue?state=%00",
    "/v1/stats?since=%00",
]
BAD_NUMBERS = [
    "/v1/agents/bot/summary?version=2147483648",
    "/v1/agents/bot/summary?version=99999999999999999999",
    "/v1/agents/bot/exchanges/2147483648",
    "/v1/stats?since=99999999d",
    "/v1/stats/series?since=99999999d",
]


@pytest.mark.parametrize("path", BAD_PATHS)
def test_http_refuses_unreadable_ids_and_queries_with_400(
    path: str, db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    client = api_client(db, hermetic_settings(monkeypatch, tmp_path))
    answer = client.get(path)
    assert answer.status_code == 400, answer.text
    assert answer.json()["detail"]


@pytest.mark.parametrize("path", BAD_NUMBERS)
def test_http_refuses_numbers_past_their_range(
    path: str, db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    client = api_client(db, hermetic_settings(monkeypatch, tmp_path))
    client.post("/v1/agents/bot/messages", json={"messages": [{"kind": "user", "content": "hi"}]})
    answer = client.get(path)
    assert answer.status_code in (400, 422), answer.text
    assert answer.json()["detail"]


def test_two_different_byte_ids_never_reach_one_agent(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    client = api_client(db, hermetic_settings(monkeypatch, tmp_path))
    stored = client.post(
        "/v1/agents/a%EF%BF%BDb/messages", json={"messages": [{"kind": "user", "content": "x"}]}
    )
    assert stored.status_code == 200, stored.text  # a real U+FFFD is a character like any other
    assert client.get("/v1/agents/a%FFb/context").status_code == 400  # an invalid byte is not that character


BAD_COMMANDS = [
    ["summary", "bot", "--version", "2147483648"],
    ["rollback", "bot", "99999999999"],
    ["diff", "bot", "1", "2147483648"],
    ["agent", "create", "bot2", "--budget", "99999999999"],
    ["agent", "budget", "bot", "99999999999"],
    ["stats", "--since", "99999999d"],
    ["alerts", "ack", "99999999999999999999"],
    ["context", "a\u202eb"],
    ["history", " bot"],
    ["agent", "create", "x" * 201],
    ["agent", "create", "bot3", "--parent", "a\u200bb"],
    ["queue", "--agent", "a\tb"],
]


@pytest.mark.parametrize("args", BAD_COMMANDS, ids=lambda a: " ".join(a)[:40])
def test_cli_refuses_with_exit_2_and_the_reason(
    args: list[str], db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cli_settings(monkeypatch, tmp_path, db)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert "Invalid value" in result.output or "Error" in result.output


@pytest.mark.parametrize("agent_id", ["a\x00b", "a\ud800", "\u202ebot", "", "x" * 201, "bot\n"])
def test_the_python_api_applies_the_same_rule(
    agent_id: str, db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    api = build_summarizer(hermetic_settings(monkeypatch, tmp_path), db)
    with pytest.raises(InvalidAgentId):
        api.get_context(agent_id)
    with pytest.raises(InvalidAgentId):
        api.record_message(agent_id, "user", "hello")
