"""Recall's `since`/`until` with UTC offsets answer the same on SQLite and PostgreSQL, through the CLI, the
HTTP API and the Python facade: `+05:30`, `-08:00` and `Z` name the same instants everywhere, a time
without a zone is UTC, and a naive Python datetime is refused."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from summarizer.composition import build_summarizer
from summarizer.domain.recall import InvalidQuery
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from tests.support.http_api import api_client, canonical, cli_settings, invoke

AGENT = "team-a/clock"
# Three exchanges around 2026-11-02 04:00 UTC (= 09:30 at +05:30) and 17:30 UTC (= 09:30 at -08:00).
TIMES = {
    1: "2026-11-02T03:59:59.500000Z",
    2: "2026-11-02T04:00:00.250000Z",
    3: "2026-11-02T17:30:00Z",
}


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    wired = cli_settings(monkeypatch, tmp_path, db)
    messages = [
        message
        for n, at in TIMES.items()
        for message in (
            canonical("user", f"Marker question {n}", id=f"u{n}", created_at=at),
            canonical("assistant", f"Marker answer {n}", id=f"a{n}", created_at=at),
        )
    ]
    response = api_client(db, wired).post(f"/v1/agents/{AGENT}/messages", json={"messages": messages})
    assert response.status_code == 200, response.text
    return wired


CASES = [
    # (since, until, exchanges found)
    ("2026-11-02T09:30:00+05:30", None, [2, 3]),
    ("2026-11-02T09:30:00+0530", None, [2, 3]),
    (None, "2026-11-02T09:30:00-08:00", [1, 2]),
    ("2026-11-02T04:00:00.250Z", None, [2, 3]),  # the exact instant of exchange 2, to the microsecond
    ("2026-11-02T04:00:00.250", None, [2, 3]),  # no zone: UTC
    ("2026-11-02T04:00:00.250001Z", None, [3]),
    ("2026-11-01T19:59:59-08:00", "2026-11-02T09:30:00.250000+05:30", [1]),  # 03:59:59 to 04:00:00.25 UTC
]


@pytest.mark.parametrize(("since", "until", "found"), CASES)
def test_offsets_name_the_same_instants_on_both_databases(
    settings: Settings, since: str | None, until: str | None, found: list[int]
) -> None:
    bounds = [*(["--since", since] if since else []), *(["--until", until] if until else [])]
    page = json.loads(invoke("recall", AGENT, "marker", "--json", "--limit", "10", *bounds))
    assert sorted(r["exchange_id"] for r in page["results"]) == found


def test_the_http_api_and_the_python_facade_agree(settings: Settings, db: Database) -> None:
    client = api_client(db, settings)
    api = build_summarizer(settings, db)
    india = timezone(timedelta(hours=5, minutes=30))
    for since, until, found in CASES:
        params = {"q": "marker", "limit": "10"} | ({"since": since} if since else {})
        params |= {"until": until} if until else {}
        answer = client.get(f"/v1/agents/{AGENT}/recall", params=params)
        assert answer.status_code == 200, answer.text
        assert sorted(r["exchange_id"] for r in answer.json()["results"]) == found, (since, until)
    at_0930_india = datetime(2026, 11, 2, 9, 30, tzinfo=india)
    assert sorted(h.exchange_id for h in api.recall(AGENT, "marker", since=at_0930_india).hits) == [2, 3]
    assert sorted(h.exchange_id for h in api.recall(AGENT, "marker", until=at_0930_india).hits) == [1]
    assert at_0930_india == datetime(2026, 11, 2, 4, 0, tzinfo=UTC)


def test_a_naive_datetime_and_a_time_past_the_calendar_are_refused(settings: Settings, db: Database) -> None:
    api = build_summarizer(settings, db)
    with pytest.raises(InvalidQuery, match="since: a datetime without a time zone"):
        api.recall(AGENT, "marker", since=datetime(2026, 11, 2, 4, 0))
    client = api_client(db, settings)
    edge = client.get(
        f"/v1/agents/{AGENT}/recall", params={"q": "marker", "since": "0001-01-01T00:00:00+05:30"}
    )
    assert edge.status_code == 422
    assert "outside the years 1 to 9999" in edge.json()["detail"]
