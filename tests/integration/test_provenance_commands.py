"""The ledger and kept versions through the CLI and the HTTP API, on SQLite and PostgreSQL: provenance
--json, history, summary --version, diff, rollback, versions prune, the aged-out line; token scopes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from summarizer.composition import build_http_app, build_update_service
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from tests.support.http_api import (
    SCOPED_TOKEN,
    api_client,
    bearer,
    canonical,
    cli_settings,
    exchange,
    invoke,
)

AGENT = "team-a/coder"


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    return cli_settings(monkeypatch, tmp_path, db)


run = invoke


def _record(client: TestClient, agent: str, first: int, count: int) -> None:
    messages = [m for n in range(first, first + count) for m in exchange(n)]
    reply = client.post(f"/v1/agents/{agent}/messages", json={"messages": messages})
    assert reply.status_code == 200, reply.text


def test_provenance_versions_diff_and_rollback(db: Database, settings: Settings) -> None:
    client = api_client(db, settings)
    _record(client, AGENT, 0, 5)
    service = build_update_service(settings, db)
    assert service.drain().runs >= 1
    _record(client, AGENT, 5, 4)
    assert service.drain().runs >= 1

    ledger = json.loads(run("provenance", AGENT, "--json"))
    assert ledger["agent_id"] == AGENT
    states = {e["id"]: e["state"] for e in ledger["exchanges"]}
    assert set(states.values()) <= {"summarized", "in_window", "waiting", "dropped"}
    summarized = [e for e in ledger["exchanges"] if e["state"] == "summarized"]
    assert summarized
    assert all(e["item_id"] and e["version"] for e in summarized)
    assert "Where the evicted exchanges went:" in run("history", AGENT)

    versions = run("versions", "list", AGENT).splitlines()
    assert len(versions) >= 2
    latest = len(versions)
    old = json.loads(run("summary", AGENT, "--version", "1", "--json"))
    assert old["version"] == 1
    assert "+ " in run("diff", AGENT, "1", str(latest))

    assert f"version {latest + 1} holds" in run("rollback", AGENT, "1")
    after = json.loads(run("provenance", AGENT, "--json"))["exchanges"]
    rolled = [e for e in after if e["state"] == "dropped"]
    assert rolled
    assert {e["reason"] for e in rolled} == {"rollback"}

    http = client.get(f"/v1/agents/{AGENT}/provenance").json()
    assert [e["state"] for e in http["exchanges"]] == [e["state"] for e in after]
    first = client.get(f"/v1/agents/{AGENT}/summary", params={"version": 1}).json()
    assert first["version"] == 1
    assert client.get(f"/v1/agents/{AGENT}/summary", params={"version": 999}).status_code == 404

    assert "pruned" in run("versions", "prune", "--keep", "1")
    assert len(run("versions", "list", AGENT).splitlines()) == 1


def test_a_scoped_token_reads_only_its_agents_provenance(db: Database, settings: Settings) -> None:
    client = api_client(db, settings)
    _record(client, AGENT, 0, 3)
    _record(client, "team-b/other", 0, 3)
    scoped = TestClient(build_http_app(settings, db), headers=bearer(SCOPED_TOKEN))
    assert scoped.get(f"/v1/agents/{AGENT}/provenance").status_code == 200
    assert scoped.get("/v1/agents/team-b/other/provenance").status_code == 403
    assert scoped.get("/v1/agents/team-b/other/summary", params={"version": 1}).status_code == 403
    assert client.get("/v1/agents/nobody/provenance").status_code == 404


def test_an_agent_whose_history_aged_out_says_so(db: Database, settings: Settings) -> None:
    client = api_client(db, settings)
    old = datetime.now(UTC) - timedelta(days=30)
    messages = [
        canonical(
            "user",
            f"Please look at module {n}. " + "Read it closely. " * 20,
            id=f"u{n}",
            created_at=(old + timedelta(minutes=n)).isoformat(),
        )
        for n in range(0, 8)
    ]
    messages = [
        m
        for n, u in enumerate(messages)
        for m in (
            u,
            canonical(
                "assistant",
                f"Looked at module {n} in detail. " + "It is fine. " * 20,
                id=f"a{n}",
                created_at=u["created_at"],
            ),
        )
    ]
    assert client.post(f"/v1/agents/{AGENT}/messages", json={"messages": messages}).status_code == 200
    build_update_service(settings, db).drain()
    ledger = json.loads(run("provenance", AGENT, "--json"))["exchanges"]
    assert {e["reason"] for e in ledger if e["state"] == "dropped"} == {"aging"}
    text = run("summary", AGENT)
    dropped = sum(1 for e in ledger if e["state"] == "dropped")
    assert f"{dropped} exchange(s) left the context window" in text
    assert f"{dropped} dropped ({dropped} aging)" in text
    assert "nothing has left the context window" not in text


def test_resummarize_swaps_in_a_rebuilt_version(db: Database, settings: Settings) -> None:
    client = api_client(db, settings)
    _record(client, AGENT, 0, 6)
    service = build_update_service(settings, db)
    service.drain()
    before = json.loads(run("summary", AGENT, "--json"))["version"]
    assert "rebuild requested" in run("resummarize", AGENT)
    service.drain()
    versions = run("versions", "list", AGENT).splitlines()
    assert versions[-1].startswith(f"v{before + 1} ")
    assert versions[-1].endswith("resummarize")
    ledger = json.loads(run("provenance", AGENT, "--json"))["exchanges"]
    assert {e["state"] for e in ledger} <= {"summarized", "in_window", "dropped"}
    assert any(e["state"] == "summarized" and e["version"] == before + 1 for e in ledger)
