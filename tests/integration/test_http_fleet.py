"""The fleet endpoints the operator's page reads (agent list, runs over time) and the page's files."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from summarizer.composition import build_http_app
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.writers.summaries import record_run
from summarizer.storage.values import RunRecord
from tests.support.http_api import SCOPED_TOKEN, api_client, bearer, canonical, exchange, hermetic_settings

AGENTS = ("team-a/coder", "team-a/tester", "team-a_x", "team-b/coder", "Solo%Agent")


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Settings:
    return hermetic_settings(monkeypatch, tmp_path, window_tokens=120, batch_size=1)


@pytest.fixture
def client(db: Database, settings: Settings) -> TestClient:
    return api_client(db, settings)


def record_fleet(client: TestClient) -> None:
    for agent in AGENTS:
        messages = [m for n in range(3) for m in exchange(n)] if agent == "team-a/coder" else []
        messages = messages or [canonical("user", f"hello from {agent}")]
        assert client.post(f"/v1/agents/{agent}/messages", json={"messages": messages}).is_success


def ids(reply: list[dict[str, object]]) -> list[object]:
    return [row["agent_id"] for row in reply]


def test_agents_are_listed_in_id_order_with_their_queue_and_window(client: TestClient) -> None:
    record_fleet(client)
    rows = client.get("/v1/agents").json()
    assert ids(rows) == sorted(AGENTS)
    coder = next(r for r in rows if r["agent_id"] == "team-a/coder")
    assert coder["queue_state"] == "pending"
    assert coder["unsummarized_exchanges"] >= 1
    assert coder["summary_version"] is None
    assert coder["window_tokens"] > 0
    quiet = next(r for r in rows if r["agent_id"] == "team-b/coder")
    assert (quiet["queue_state"], quiet["unsummarized_exchanges"]) == (None, 0)


def test_agents_filter_by_prefix_and_search_and_page(client: TestClient) -> None:
    record_fleet(client)
    # `_` and `%` are literal characters in a prefix or a search, not wildcards.
    assert ids(client.get("/v1/agents", params={"prefix": "team-a/"}).json()) == [
        "team-a/coder",
        "team-a/tester",
    ]
    assert ids(client.get("/v1/agents", params={"prefix": "team-a_"}).json()) == ["team-a_x"]
    assert ids(client.get("/v1/agents", params={"q": "CODER"}).json()) == ["team-a/coder", "team-b/coder"]
    assert ids(client.get("/v1/agents", params={"q": "o%a"}).json()) == ["Solo%Agent"]
    first = client.get("/v1/agents", params={"limit": 2}).json()
    rest = client.get("/v1/agents", params={"limit": 10, "after": first[-1]["agent_id"]}).json()
    assert ids(first) + ids(rest) == sorted(AGENTS)
    assert client.get("/v1/agents", params={"limit": 0}).status_code == 422


def test_a_scoped_token_lists_only_its_agents(client: TestClient, db: Database, settings: Settings) -> None:
    record_fleet(client)
    scoped = TestClient(build_http_app(settings, db), headers=bearer(SCOPED_TOKEN))
    assert ids(scoped.get("/v1/agents").json()) == ["team-a/coder", "team-a/tester"]
    assert ids(scoped.get("/v1/agents", params={"prefix": "team-a/t"}).json()) == ["team-a/tester"]
    assert ids(scoped.get("/v1/agents", params={"prefix": "team"}).json()) == [
        "team-a/coder",
        "team-a/tester",
    ]
    assert scoped.get("/v1/agents", params={"prefix": "team-b/"}).json() == []
    assert ids(scoped.get("/v1/agents", params={"q": "coder"}).json()) == ["team-a/coder"]
    assert scoped.get("/v1/stats/series").status_code == 403
    assert TestClient(client.app).get("/v1/agents").status_code == 401


def test_the_series_counts_runs_per_bucket(client: TestClient, db: Database) -> None:
    now = datetime.now(UTC)
    # minutes ago -> outcome: two buckets of 10 minutes in the last 30 minutes, one run outside the window
    runs = {3: "ok", 4: "retry", 5: "ok", 15: "parked", 16: "ok", 45: "ok"}
    with db.write() as conn:
        for minutes, outcome in runs.items():
            finished = now - timedelta(minutes=minutes)
            record_run(
                conn,
                RunRecord(agent_id="a", started_at=finished, finished_at=finished, outcome=outcome),
            )
    doc = client.get("/v1/stats/series", params={"since": "30m", "buckets": 3}).json()
    assert doc["bucket_seconds"] == 600
    assert [(b["completed"], b["failed"]) for b in doc["buckets"]] == [(0, 0), (1, 1), (2, 1)]
    starts = [datetime.fromisoformat(b["start"]) for b in doc["buckets"]]
    assert starts[1] - starts[0] == timedelta(minutes=10)
    assert client.get("/v1/stats/series", params={"buckets": 0}).status_code == 422
    assert client.get("/v1/stats/series", params={"buckets": 241}).status_code == 422
    assert client.get("/v1/stats/series", params={"since": "later"}).status_code == 422


def test_the_page_is_served_without_a_token_and_loads_nothing_from_elsewhere(client: TestClient) -> None:
    anonymous = TestClient(client.app)
    assert anonymous.get("/ui", follow_redirects=False).headers["location"] == "/ui/"
    page = anonymous.get("/ui/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for asset in ("common.js", "fleet.js", "agent.js", "app.js", "style.css"):
        reply = anonymous.get(f"/ui/{asset}")
        assert reply.status_code == 200, asset
        assert "http://" not in reply.text.replace("http://www.w3.org/2000/svg", ""), asset
        assert "https://" not in reply.text, asset
    assert "https://" not in page.text
    assert anonymous.get("/ui/../pyproject.toml").status_code == 404
