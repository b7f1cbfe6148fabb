"""The operator endpoints and the token rules of the HTTP API, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from summarizer.composition import build_http_app
from summarizer.settings import Settings
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.writers.alerts import raise_once
from summarizer.storage.sql.writers.summaries import record_run
from summarizer.storage.values import RunRecord
from tests.support.http_api import (
    OPERATOR_TOKEN,
    SCOPED_TOKEN,
    api_client,
    bearer,
    canonical,
    hermetic_settings,
)
from tests.support.rows import insert_queued_agent

NOW = datetime.now(UTC)
OWN = "team-a/coder"
OTHER = "team-b/coder"


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Settings:
    return hermetic_settings(monkeypatch, tmp_path)


@pytest.fixture
def client(db: Database, settings: Settings) -> TestClient:
    return api_client(db, settings)


def seed_fleet(db: Database) -> None:
    """A parked agent, a pending one, three runs in the last hour (one failed), an open alert."""
    with db.write() as conn:
        insert_queued_agent(conn, "parked", state="failed", now=NOW)
        insert_queued_agent(conn, "waiting", state="pending", now=NOW)
        for n, outcome in enumerate(["ok", "ok", "retry"]):
            finished = NOW - timedelta(minutes=30 - n)
            run = RunRecord(
                agent_id="waiting",
                started_at=finished - timedelta(seconds=2),
                finished_at=finished,
                outcome=outcome,
                path="append" if outcome == "ok" else None,
                llm_input_tokens=500,
                summary_tokens=900 if outcome == "ok" else None,
            )
            record_run(conn, run)
        raise_once(
            conn,
            kind="summary_updates_failing",
            agent_id="parked",
            message="parked after 5 failures",
            details={},
            now=NOW,
        )


def test_queue_lists_rows_and_filters_by_state(client: TestClient, db: Database) -> None:
    seed_fleet(db)
    rows = client.get("/v1/queue").json()
    assert {(r["agent_id"], r["state"]) for r in rows} == {("parked", "failed"), ("waiting", "pending")}
    assert [r["agent_id"] for r in client.get("/v1/queue", params={"state": "failed"}).json()] == ["parked"]
    both = client.get("/v1/queue", params=[("state", "failed"), ("state", "pending")]).json()
    assert len(both) == 2
    bogus = client.get("/v1/queue", params={"state": "bogus"})
    assert bogus.status_code == 422


def test_requeue_rearms_a_parked_agent(client: TestClient, db: Database) -> None:
    seed_fleet(db)
    reply = client.post("/v1/agents/parked/requeue")
    assert reply.status_code == 200, reply.text
    assert reply.json() | {"woken": None} == {
        "agent_id": "parked",
        "previous_state": "failed",
        "state": "pending",
        "woken": None,
    }
    assert [r["state"] for r in client.get("/v1/queue").json() if r["agent_id"] == "parked"] == ["pending"]
    assert client.post("/v1/agents/nobody/requeue").status_code == 404


def test_stats_report_the_window_and_the_queue(client: TestClient, db: Database) -> None:
    seed_fleet(db)
    doc = client.get("/v1/stats", params={"since": "2h"}).json()
    assert (doc["updates_completed"], doc["updates_failed"], doc["queue_depth"]) == (2, 1, 2)
    assert doc["queue"]["failed"] == 1
    assert doc["window"]["label"] == "2h"
    assert client.get("/v1/stats", params={"since": "soon"}).status_code == 422
    assert client.get("/v1/stats", params={"since": "99999999d"}).status_code == 422


def test_alerts_list_and_ack(client: TestClient, db: Database) -> None:
    seed_fleet(db)
    (alert,) = client.get("/v1/alerts").json()
    assert (alert["kind"], alert["agent_id"], alert["open"], alert["acknowledged_at"]) == (
        "summary_updates_failing",
        "parked",
        True,
        None,
    )
    acked = client.post(f"/v1/alerts/{alert['id']}/ack")
    assert acked.status_code == 200
    assert acked.json()["acknowledged_at"] is not None
    assert client.get("/v1/alerts").json()[0]["acknowledged_at"] == acked.json()["acknowledged_at"]
    missing = client.post("/v1/alerts/999999/ack")
    assert (missing.status_code, missing.json()["detail"]) == (404, "no alert with id 999999")


# ----- tokens -------------------------------------------------------------------------------------------

HOST_READS = ("context", "summary", "history")
OPERATOR_CALLS = (
    ("GET", "/v1/queue"),
    ("GET", "/v1/stats"),
    ("GET", "/v1/stats/series"),
    ("GET", "/v1/alerts"),
    ("POST", "/v1/alerts/1/ack"),
    ("POST", f"/v1/agents/{OWN}/requeue"),
    ("GET", "/metrics"),
)


def test_every_endpoint_but_healthz_needs_a_valid_token(db: Database, settings: Settings) -> None:
    anonymous = TestClient(build_http_app(settings, db))
    calls = [("GET", f"/v1/agents/{OWN}/{view}") for view in HOST_READS]
    calls += [("POST", f"/v1/agents/{OWN}/messages"), *OPERATOR_CALLS]
    for method, path in calls:
        for headers in ({}, bearer("not-a-configured-token-at-all"), {"Authorization": OPERATOR_TOKEN}):
            reply = anonymous.request(method, path, headers=headers, json={"messages": []})
            assert reply.status_code == 401, (method, path, headers)
            assert reply.headers["www-authenticate"] == "Bearer"
    health = anonymous.get("/healthz")
    assert (health.status_code, health.json()) == (200, {"status": "ok", "database": "ok"})


def test_a_scoped_token_sees_its_agents_and_nothing_else(db: Database, settings: Settings) -> None:
    operator = api_client(db, settings)
    for agent in (OWN, OTHER):
        assert operator.post(
            f"/v1/agents/{agent}/messages", json={"messages": [canonical("user", "hi")]}
        ).is_success
    seed_fleet(db)
    scoped = TestClient(build_http_app(settings, db), headers=bearer(SCOPED_TOKEN))

    for view in HOST_READS:
        assert scoped.get(f"/v1/agents/{OWN}/{view}").status_code == 200, view
        for agent in (OTHER, "nobody", "team-a"):  # existing or not: the same answer
            reply = scoped.get(f"/v1/agents/{agent}/{view}")
            assert (reply.status_code, reply.json()) == (
                403,
                {"detail": "this token is limited to some agents"},
            )
            assert "team-b" not in reply.text

    ok = scoped.post(f"/v1/agents/{OWN}/messages", json={"messages": [canonical("assistant", "hello")]})
    assert ok.status_code == 200
    refused = scoped.post(f"/v1/agents/{OTHER}/messages", json={"messages": [canonical("user", "sneak")]})
    assert refused.status_code == 403
    smuggled = scoped.post(
        f"/v1/agents/{OWN}/messages", json={"messages": [canonical("user", "sneak", agent=OTHER)]}
    )
    assert smuggled.status_code == 422
    other_history = operator.get(f"/v1/agents/{OTHER}/history").json()
    assert [e["message_count"] for e in other_history["exchanges"]] == [1]  # nothing was added

    for method, path in OPERATOR_CALLS:
        reply = scoped.request(method, path)
        assert reply.status_code == 403, (method, path)
        assert "parked" not in reply.text
        assert "waiting" not in reply.text
    assert operator.get("/v1/alerts").json()[0]["acknowledged_at"] is None  # the refused ack did nothing


def test_healthz_says_when_the_database_is_down(settings: Settings) -> None:
    unreachable = connect_database("postgresql+psycopg://nobody@127.0.0.1:1/none")
    try:
        reply = TestClient(build_http_app(settings, unreachable)).get("/healthz")
    finally:
        unreachable.dispose()
    assert reply.status_code == 503
    assert reply.json()["status"] == "unavailable"


def test_the_openapi_document_lists_every_endpoint(client: TestClient) -> None:
    spec = TestClient(client.app).get("/openapi.json").json()
    paths = {(method.upper(), path) for path, item in spec["paths"].items() for method in item}
    assert paths == {
        ("POST", "/v1/agents/{agent_id}/messages"),
        ("GET", "/v1/agents/{agent_id}/context"),
        ("GET", "/v1/agents/{agent_id}/summary"),
        ("GET", "/v1/agents/{agent_id}/history"),
        ("GET", "/v1/agents/{agent_id}/provenance"),
        ("GET", "/v1/agents/{agent_id}/recall"),
        ("GET", "/v1/agents/{agent_id}/exchanges/{exchange_id}"),
        ("GET", "/v1/agents/{agent_id}/pins"),
        ("POST", "/v1/agents/{agent_id}/pins"),
        ("DELETE", "/v1/agents/{agent_id}/pins"),
        ("GET", "/v1/agents/{agent_id}/instructions"),
        ("PUT", "/v1/agents/{agent_id}/instructions"),
        ("DELETE", "/v1/agents/{agent_id}/instructions"),
        ("GET", "/v1/queue"),
        ("POST", "/v1/agents/{agent_id}/requeue"),
        ("GET", "/v1/stats"),
        ("GET", "/v1/alerts"),
        ("POST", "/v1/alerts/{alert_id}/ack"),
        ("GET", "/v1/agents"),
        ("GET", "/v1/fleet/agents"),
        ("GET", "/v1/stats/series"),
        ("GET", "/v1/cost"),
        ("GET", "/v1/agents/{agent_id}/cost"),
        ("GET", "/v1/agents/{agent_id}/budget-cost"),
        ("PUT", "/v1/agents/{agent_id}/budget-cost"),
        ("GET", "/healthz"),
        ("GET", "/metrics"),
    }
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"


def test_metrics_are_served_to_an_operator_token_only(db: Database, client: TestClient) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    seed_fleet(db)
    assert client.get("/metrics", headers=bearer(SCOPED_TOKEN)).status_code == 403
    response = client.get("/metrics", headers=bearer(OPERATOR_TOKEN))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }
    assert samples[("summarizer_parked_agents", ())] == 1
    assert samples[("summarizer_queue_agents", (("state", "pending"),))] == 1
    assert samples[("summarizer_update_runs_total", (("outcome", "ok"),))] == 2
    assert samples[("summarizer_update_duration_seconds_count", ())] == 2
