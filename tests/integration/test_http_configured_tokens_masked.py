"""The server's own tokens never reach a reader: written into a conversation, a pin's name and text and
the summary instructions through the write API, every configured token (SUMMARIZER_API_TOKENS and
SUMMARIZER_API_READ_TOKENS) comes back masked on every read route a read-only token can call (found by
walking the app's routes), and none is in the database, kept pin versions included after an unpin. A
refused request body is answered without echoing what it held. On both databases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import String, cast, select

from summarizer.composition import build_http_app
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import metadata
from tests.support.http_api import bearer, canonical, hermetic_settings

WRITER = "wr1te-operator-token-0123456789"
SCOPED = "sc0ped-writer-token-0123456789"
READER = "r3ad-only-token-0123456789"
TOKENS = (WRITER, SCOPED, READER)
GITHUB = "ghp_Q7wErT9yUiOp1AsDfGhJkLzXcVbNm23456789"
AGENT = "team-a/coder"
ENV_DUMP = (
    "$ env | grep SUMMARIZER\n"
    f"SUMMARIZER_API_TOKENS={WRITER},{SCOPED}@team-a/\n"
    f"SUMMARIZER_API_READ_TOKENS={READER}\n"
)
PATH_VALUES = {"agent_id": AGENT, "alert_id": "1", "version": "1", "exchange_id": "1", "id": "1"}


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    url = db.url.render_as_string(hide_password=False)
    return hermetic_settings(
        monkeypatch,
        tmp_path,
        database_url=url,
        api_tokens=f"{WRITER},{SCOPED}@team-a/",
        api_read_tokens=READER,
        window_tokens=80,
    )


def _dump(db: Database) -> str:
    """Every value of every table, as one string."""
    parts: list[str] = []
    with db.read() as conn:
        for table in metadata.sorted_tables:
            for row in conn.execute(select(*(cast(c, String) for c in table.c))):
                parts.extend(str(v) for v in row if v is not None)
    return "\n".join(parts)


def _write_everywhere(app: TestClient) -> None:
    writer = bearer(WRITER)
    words = " ".join(f"w{i}" for i in range(30))
    messages: list[dict[str, Any]] = [
        canonical("user", f"my server token is {WRITER}, the reader has {READER}; {words}"),
        canonical(
            "tool_call", "", tool_call_id="t1", name="bash", input={"command": "env", "env": {"T": SCOPED}}
        ),
        canonical("tool_result", ENV_DUMP, tool_call_id="t1"),
        canonical("assistant", f"Found {WRITER} and {GITHUB} in the environment. {words}"),
    ]
    for n in range(3):
        messages += [canonical("user", f"more {n}: {words}"), canonical("assistant", f"ok {n}: {words}")]
    answer = app.post(f"/v1/agents/{AGENT}/messages", json={"messages": messages}, headers=writer)
    assert answer.is_success, answer.text
    for name, text in (
        (f"t {WRITER}", f"use {SCOPED}"),
        (f"gh {GITHUB}", f"keep {GITHUB}"),
        ("plain", READER),
    ):
        pinned = app.post(f"/v1/agents/{AGENT}/pins", json={"text": text, "name": name}, headers=writer)
        assert pinned.status_code == 201, pinned.text
    said = app.put(f"/v1/agents/{AGENT}/instructions", json={"text": f"never print {WRITER}"}, headers=writer)
    assert said.is_success, said.text


def _read_calls(app: TestClient) -> list[str]:
    """Every documented GET route, its path parameters filled in, plus the operator page."""
    paths = ["/ui/"]
    for template, operations in app.get("/openapi.json", headers=bearer(READER)).json()["paths"].items():
        if "get" in operations:
            path = template
            for name, value in PATH_VALUES.items():
                path = path.replace(f"{{{name}}}", value)
            paths.append(path)
    return paths


def test_a_read_token_finds_no_configured_token_on_any_route(db: Database, settings: Settings) -> None:
    app = TestClient(build_http_app(settings, db))
    _write_everywhere(app)
    paths = _read_calls(app)
    assert {"/v1/agents/team-a/coder/history", "/v1/agents/team-a/coder/pins"} <= set(paths)
    read = 0
    for path in paths:
        for params in ({}, {"q": "token", "all": "true"}):
            answer = app.get(path, params=params, headers=bearer(READER))
            read += answer.status_code == 200
            for token in (*TOKENS, GITHUB):
                assert token not in answer.text, (path, params, answer.status_code)
    assert read >= 10
    history = app.get(f"/v1/agents/{AGENT}/history", headers=bearer(READER)).text
    assert "[secret:configured]" in history
    pins = app.get(f"/v1/agents/{AGENT}/pins", headers=bearer(READER)).json()["pins"]
    assert {p["name"] for p in pins} >= {"t [secret:configured]", "gh [secret:github-token …6789]"}
    assert "[secret:configured]" in app.get(f"/v1/agents/{AGENT}/instructions", headers=bearer(READER)).text


def test_an_unpinned_pin_leaves_no_raw_secret_in_kept_versions(db: Database, settings: Settings) -> None:
    app = TestClient(build_http_app(settings, db))
    _write_everywhere(app)
    for name in (f"t {WRITER}", f"gh {GITHUB}"):  # removed by the name as typed
        gone = app.delete(f"/v1/agents/{AGENT}/pins", params={"name": name}, headers=bearer(WRITER))
        assert gone.is_success, gone.text
    left = app.get(f"/v1/agents/{AGENT}/pins", headers=bearer(READER)).json()["pins"]
    assert [p["name"] for p in left] == ["plain"]
    stored = _dump(db)
    assert "[secret:configured]" in stored
    for token in (*TOKENS, GITHUB):
        assert token not in stored


def test_a_refused_body_is_not_echoed(db: Database, settings: Settings) -> None:
    app = TestClient(build_http_app(settings, db))
    body = {"messages": [{"kind": GITHUB, "content": 12, "extra": WRITER}], "budget": WRITER}
    for path in (f"/v1/agents/{AGENT}/messages", f"/v1/agents/{AGENT}/pins"):
        refused = app.post(path, json=body, headers=bearer(WRITER))
        assert refused.status_code == 422, refused.text
        assert refused.json()["detail"], refused.text
        assert GITHUB not in refused.text
        assert WRITER not in refused.text
        assert all("input" not in problem for problem in refused.json()["detail"])
