"""Token scopes over the HTTP API cover whole segments of an agent id: `token@team-a/` sees `team-a/x`
but never `team-ab`; `token@team-a` sees the agent `team-a` and nothing else; `summarizer serve` says so
at start-up."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from summarizer.cli.main import cli
from summarizer.composition import build_http_app
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from tests.support.http_api import OPERATOR_TOKEN, api_client, bearer, canonical, hermetic_settings

FOLDER_TOKEN = "folder-token-0123456789"
EXACT_TOKEN = "exact-token-0123456789"
TOKENS = f"{OPERATOR_TOKEN},{FOLDER_TOKEN}@team-a/,{EXACT_TOKEN}@team-a"
AGENTS = ("team-a", "team-a/x", "team-ab", "team-ab/x", "team-")


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Settings:
    return hermetic_settings(monkeypatch, tmp_path, api_tokens=TOKENS)


@pytest.fixture
def app(db: Database, settings: Settings) -> TestClient:
    client = api_client(db, settings)
    for agent in AGENTS:
        reply = client.post(
            f"/v1/agents/{agent}/messages", json={"messages": [canonical("user", f"hi {agent}")]}
        )
        assert reply.is_success, reply.text
    return TestClient(build_http_app(settings, db))


@pytest.mark.parametrize(
    ("token", "visible"),
    [(FOLDER_TOKEN, {"team-a/x"}), (EXACT_TOKEN, {"team-a"})],
)
def test_a_scope_covers_whole_segments(app: TestClient, token: str, visible: set[str]) -> None:
    for agent in AGENTS:
        for view in ("history", "summary", "context"):
            answer = app.get(f"/v1/agents/{agent}/{view}", headers=bearer(token))
            if agent in visible:
                assert answer.status_code in {200, 404}, (agent, view, answer.text)
                assert answer.status_code == 200 or "summary" in answer.text, (agent, view, answer.text)
            else:
                assert answer.status_code == 403, (agent, view, answer.text)
                assert agent not in answer.text
        recalled = app.get(f"/v1/agents/{agent}/recall", params={"q": "hi"}, headers=bearer(token))
        assert recalled.status_code == (200 if agent in visible else 403), (agent, recalled.text)
    listed = app.get("/v1/agents", headers=bearer(token)).json()
    assert {row["agent_id"] for row in listed} == visible
    for prefix in ("team", "team-a", "team-a/", "team-ab"):
        rows = app.get("/v1/agents", params={"prefix": prefix}, headers=bearer(token)).json()
        assert {row["agent_id"] for row in rows} == {a for a in visible if a.startswith(prefix)}, prefix


def test_serve_warns_of_a_scope_read_as_an_exact_id(
    settings: Settings, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUMMARIZER_API_TOKENS", TOKENS)
    monkeypatch.setenv("SUMMARIZER_DATABASE_URL", db.url.render_as_string(hide_password=False))
    monkeypatch.setenv("SUMMARIZER_DATA_DIR", str(settings.data_dir))
    with socket.socket() as busy:  # the port is taken: serve stops right after its start-up checks
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--host", "127.0.0.1", "--port", str(port)])
    assert result.exit_code == 2, result.output
    assert "the port is in use" in result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, result.output
    assert "entry 3 is scoped to 'team-a'" in warnings[0]
    assert "only the agent of exactly that id" in warnings[0]
    assert EXACT_TOKEN not in result.output
