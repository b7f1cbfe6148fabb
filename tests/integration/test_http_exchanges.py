"""`GET /v1/agents/{agent_id}/exchanges/{exchange_id}` on both databases: one exchange's messages, evicted
or in the window, within the token's scope."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from tests.support.http_api import SCOPED_TOKEN, api_client, bearer, canonical, exchange, hermetic_settings

AGENT = "team-a/coder"


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Settings:
    return hermetic_settings(monkeypatch, tmp_path, window_tokens=200, batch_size=1)


@pytest.fixture
def client(db: Database, settings: Settings) -> TestClient:
    return api_client(db, settings)


def tool_exchange() -> list[dict[str, Any]]:
    return [
        canonical("user", "Run the tests", id="u"),
        canonical("tool_call", "", tool_call_id="t1", name="pytest", input={"args": ["-q"]}, id="c"),
        canonical("tool_result", "3 failed", tool_call_id="t1", is_error=True, id="r"),
        canonical("assistant", "Three tests fail.", id="a"),
    ]


def test_an_evicted_exchange_gives_its_messages(client: TestClient) -> None:
    body = {"messages": [canonical("system", "You are a coding agent.", id="s"), *tool_exchange()]}
    body["messages"] += [m for n in range(1, 4) for m in exchange(n)]
    assert client.post(f"/v1/agents/{AGENT}/messages", json=body).status_code == 200
    history = client.get(f"/v1/agents/{AGENT}/history").json()["exchanges"]
    assert history[0]["state"] == "evicted"

    reply = client.get(f"/v1/agents/{AGENT}/exchanges/{history[0]['id']}")
    assert reply.status_code == 200, reply.text
    document = reply.json()
    assert (document["agent_id"], document["exchange_id"]) == (AGENT, history[0]["id"])
    messages = document["messages"]
    assert [m["kind"] for m in messages] == ["user", "tool_call", "tool_result", "assistant"]
    assert messages[0]["content"] == "Run the tests"
    assert (messages[1]["name"], messages[1]["input"]) == ("pytest", {"args": ["-q"]})
    assert (messages[2]["content"], messages[2]["is_error"]) == ("3 failed", True)
    assert {m["exchange_id"] for m in messages} == {history[0]["id"]}
    assert len(messages) == history[0]["message_count"]

    newest = client.get(f"/v1/agents/{AGENT}/exchanges/{history[-1]['id']}").json()["messages"]
    assert [m["host_id"] for m in newest] == ["u3", "a3"]  # in the window


def test_unknown_agents_and_exchanges_are_404(client: TestClient) -> None:
    assert client.post(f"/v1/agents/{AGENT}/messages", json={"messages": exchange(1)}).status_code == 200
    assert client.get("/v1/agents/nobody/exchanges/1").json()["detail"] == "unknown agent 'nobody'"
    missing = client.get(f"/v1/agents/{AGENT}/exchanges/2")
    assert (missing.status_code, missing.json()["detail"]) == (404, f"unknown exchange 2 of agent {AGENT!r}")
    assert client.get(f"/v1/agents/{AGENT}/exchanges/0").status_code == 422
    assert client.get(f"/v1/agents/{AGENT}/exchanges/{2**31}").status_code == 422


def test_a_scoped_token_reads_only_its_own_agents_exchanges(client: TestClient) -> None:
    for agent in (AGENT, "team-b/other"):
        assert client.post(f"/v1/agents/{agent}/messages", json={"messages": exchange(1)}).status_code == 200
    scoped = bearer(SCOPED_TOKEN)
    assert client.get(f"/v1/agents/{AGENT}/exchanges/1", headers=scoped).status_code == 200
    assert client.get("/v1/agents/team-b/other/exchanges/1", headers=scoped).status_code == 403
    assert client.get("/v1/agents/team-b/nobody/exchanges/1", headers=scoped).status_code == 403
