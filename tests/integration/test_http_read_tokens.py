"""Read-only tokens (SUMMARIZER_API_READ_TOKENS): every route that changes something answers 403 to them,
found by walking the app's routes (a new write route is covered without touching this test), while what
their scope covers still reads; nothing is changed by a refused call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from summarizer.composition import build_http_app
from summarizer.http.auth import READ_ONLY
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from tests.support.http_api import (
    OPERATOR_TOKEN,
    SCOPED_TOKEN,
    api_client,
    bearer,
    canonical,
    hermetic_settings,
)

READER = "reader-token-0123456789"
SCOPED_READER = "scoped-reader-0123456789"
AGENT = "team-a/coder"
WRITES = {"POST", "PUT", "DELETE", "PATCH"}
BODIES: dict[str, Any] = {
    "/messages": {"messages": [{"kind": "user", "content": "sneaked in"}]},
    "/pins": {"text": "sneaked pin", "name": "x"},
    "/instructions": {"text": "sneaked instructions"},
    "/budget-cost": {"usd": "1.00"},
}


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Settings:
    return hermetic_settings(
        monkeypatch,
        tmp_path,
        api_tokens=f"{OPERATOR_TOKEN},{SCOPED_TOKEN}@team-a/",
        api_read_tokens=f"{READER},{SCOPED_READER}@team-a/",
    )


@pytest.fixture
def app(db: Database, settings: Settings) -> TestClient:
    client = api_client(db, settings)
    reply = client.post(f"/v1/agents/{AGENT}/messages", json={"messages": [canonical("user", "hello there")]})
    assert reply.is_success, reply.text
    return TestClient(build_http_app(settings, db))


def _write_calls(client: TestClient) -> list[tuple[str, str, Any]]:
    """Every documented route that changes something, from the app's own OpenAPI document."""
    calls = []
    for template, operations in client.get("/openapi.json").json()["paths"].items():
        for method in sorted(m.upper() for m in operations if m.upper() in WRITES):
            path = template.replace("{agent_id}", AGENT).replace("{alert_id}", "1")
            body = next((b for tail, b in BODIES.items() if path.endswith(tail)), None)
            params = {"name": "x"} if method == "DELETE" and path.endswith("/pins") else None
            calls.append((method, path, (body, params)))
    return calls


def _state(app: TestClient) -> list[Any]:
    token = bearer(OPERATOR_TOKEN)
    return [
        app.get(f"/v1/agents/{AGENT}/{view}", headers=token).json()
        for view in ("history", "pins", "instructions", "budget-cost")
    ]


@pytest.mark.parametrize("token", [READER, SCOPED_READER])
def test_every_write_route_refuses_a_read_only_token(app: TestClient, token: str) -> None:
    calls = _write_calls(app)
    assert {path.rsplit("/", 1)[-1] for _, path, _ in calls} >= {
        "messages",
        "pins",
        "instructions",
        "requeue",
    }
    before = _state(app)
    for method, path, (body, params) in calls:
        answer = app.request(method, path, json=body, params=params, headers=bearer(token))
        assert answer.status_code == 403, (method, path, answer.text)
        assert answer.json()["detail"] in {READ_ONLY, "this token is limited to some agents"}, (method, path)
        if token == READER:  # unscoped: the only reason to refuse is that it reads only
            assert answer.json()["detail"] == READ_ONLY, (method, path)
    assert _state(app) == before


@pytest.mark.parametrize("token", [READER, SCOPED_READER])
def test_a_read_only_token_reads_what_its_scope_covers(app: TestClient, token: str) -> None:
    for view in ("history", "summary", "context", "pins", "instructions", "cost", "budget-cost"):
        answer = app.get(f"/v1/agents/{AGENT}/{view}", headers=bearer(token))
        assert answer.status_code in {200, 404}, (view, answer.text)
        assert answer.status_code == 200 or view == "summary", (view, answer.text)
    recalled = app.get(f"/v1/agents/{AGENT}/recall", params={"q": "hello"}, headers=bearer(token))
    assert recalled.status_code == 200, recalled.text
    assert recalled.json()["results"], recalled.text
    queue = app.get("/v1/queue", headers=bearer(token))
    assert queue.status_code == (200 if token == READER else 403), queue.text


def test_a_writing_token_still_writes(app: TestClient) -> None:
    pinned = app.post(
        f"/v1/agents/{AGENT}/pins", json={"text": "keep me", "name": "k"}, headers=bearer(SCOPED_TOKEN)
    )
    assert pinned.status_code == 201, pinned.text
    assert [p["name"] for p in pinned.json()["pins"]] == ["k"]


def test_a_token_in_both_settings_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    settings = hermetic_settings(
        monkeypatch, tmp_path, api_tokens=OPERATOR_TOKEN, api_read_tokens=OPERATOR_TOKEN
    )
    with pytest.raises(
        Exception, match="SUMMARIZER_API_READ_TOKENS: entry 1 repeats an earlier token"
    ) as info:
        build_http_app(settings)
    assert OPERATOR_TOKEN not in str(info.value)
