"""The host endpoints of the HTTP API on both databases: record, read back, and refuse bad input the way
`summarizer ingest` does (same reasons, nothing stored)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from summarizer.api import NO_SUMMARY_YET
from summarizer.composition import build_summarizer, build_update_service
from summarizer.domain.errors import InvalidMessage
from summarizer.engine.render import RECALL_POINTER
from summarizer.ingest.reader import ReadOptions, read_records
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from tests.support.http_api import api_client, canonical, exchange, hermetic_settings

AGENT = "team-a/coder"


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Settings:
    return hermetic_settings(monkeypatch, tmp_path, window_tokens=200, batch_size=1, max_message_bytes=4_000)


@pytest.fixture
def client(db: Database, settings: Settings) -> TestClient:
    return api_client(db, settings)


def post(client: TestClient, agent: str, messages: list[dict[str, Any]]) -> Any:
    return client.post(f"/v1/agents/{agent}/messages", json={"messages": messages})


def conversation(exchanges: int) -> list[dict[str, Any]]:
    messages = [canonical("system", "You are a coding agent.", id="sys")]
    for n in range(exchanges):
        messages += exchange(n)
    return messages


def test_record_then_read_context_summary_and_history(
    client: TestClient, db: Database, settings: Settings
) -> None:
    reply = post(client, AGENT, conversation(5))
    assert reply.status_code == 200, reply.text
    report = reply.json()
    assert (report["agent_id"], report["stored"], report["skipped"]) == (AGENT, 11, 0)
    assert report["evicted_exchanges"] >= 2
    assert report["summary_update_queued"] is True
    assert 0 < report["window_tokens"] <= 200

    history = client.get(f"/v1/agents/{AGENT}/history").json()
    states = [e["state"] for e in history["exchanges"]]
    assert len(states) == 5
    assert states.count("evicted") == report["evicted_exchanges"]
    assert states[-1] == "window"
    assert history["budget_tokens"] == 200

    context = client.get(f"/v1/agents/{AGENT}/context").json()
    # Honest before the first update: what left the window is counted, never "nothing has left".
    left = report["evicted_exchanges"]
    assert context["summary"] == (
        f"_No summary items yet: {left} exchange(s) left the context window: {left} waiting for the summary"
        f" worker._\n\n{RECALL_POINTER}\n"
    )
    assert context["summary"] != NO_SUMMARY_YET
    assert context["summary_version"] is None
    window = [m["host_id"] for m in context["messages"]]
    assert window[0] == "sys"
    assert window[-2:] == ["u4", "a4"]
    assert "u0" not in window  # evicted

    empty = client.get(f"/v1/agents/{AGENT}/summary").json()
    assert (empty["version"], empty["markdown"]) == (None, context["summary"])

    # A worker folds the evicted exchanges; the API then serves the committed summary.
    assert build_update_service(settings, db).drain().runs >= 1
    summary = client.get(f"/v1/agents/{AGENT}/summary").json()
    assert summary["version"] >= 1
    items = summary["tiers"]["session"]
    assert items, summary
    covered = {n for item in items for n in item["exchange_ids"]}
    evicted_ids = {e["id"] for e in history["exchanges"] if e["state"] == "evicted"}
    assert covered == evicted_ids
    context = client.get(f"/v1/agents/{AGENT}/context").json()
    assert context["summary_version"] == summary["version"]
    assert context["summary"] == summary["markdown"]
    assert context["summary"] != NO_SUMMARY_YET


def test_a_retried_request_stores_nothing_twice(client: TestClient) -> None:
    assert post(client, AGENT, conversation(2)).json()["stored"] == 5
    again = post(client, AGENT, conversation(2)).json()
    assert (again["stored"], again["skipped"]) == (0, 5)
    exchanges = client.get(f"/v1/agents/{AGENT}/history").json()["exchanges"]
    assert [e["message_count"] for e in exchanges] == [2, 2]


def test_unknown_agents_are_404(client: TestClient) -> None:
    for view in ("context", "summary", "history"):
        reply = client.get(f"/v1/agents/nobody/{view}")
        assert reply.status_code == 404, view
        assert reply.json()["detail"] == "unknown agent 'nobody'"


BAD_MESSAGES: list[dict[str, Any]] = [
    {"kind": "user", "contnet": "typo"},
    {"kind": "robot", "content": "x"},
    {"kind": "user", "content": 5},
    {"kind": "tool_call", "tool_call_id": "t1", "input": {}},
    {"kind": "user", "content": "x", "name": "bash"},
    {"kind": "user", "content": "a\u0000b"},
    {"kind": "user", "content": "x", "tokens": -1},
    {"kind": "user", "content": "x", "tokens": 1.5},
    {"kind": "user", "content": "x", "created_at": "yesterday"},
    {"kind": "user", "content": "x", "created_at": "2026-01-01T00:00:00"},
    {"kind": "user", "content": "x", "id": ""},
    {"kind": "user", "content": "x" * 5_000},
    {"kind": "tool_result", "content": "ok", "tool_call_id": "never-called"},
]


def cli_reason(tmp_path: Path, settings: Settings, db: Database, lines: list[dict[str, Any]]) -> str:
    """What `summarizer ingest FILE --agent AGENT --strict` reports for these lines: parse, then record (the
    HTTP API is all-or-nothing, as `--strict` is; plain `ingest` skips and names a bad line instead)."""
    source = tmp_path / "bad.jsonl"
    source.write_text("".join(json.dumps(m, separators=(",", ":")) + "\n" for m in lines))
    try:
        records = read_records(
            source, "canonical", AGENT, settings.max_message_bytes, ReadOptions(strict=True)
        )
        build_summarizer(settings, db).record_many([(r.agent_id, r.message) for r in records])
    except InvalidMessage as exc:
        return exc.reason
    raise AssertionError(f"the CLI path accepted {lines}")


@pytest.mark.parametrize("bad", BAD_MESSAGES, ids=lambda m: json.dumps(m)[:40])
def test_a_bad_message_gets_the_cli_reason_and_stores_nothing(
    client: TestClient, db: Database, settings: Settings, tmp_path: Path, bad: dict[str, Any]
) -> None:
    batch = [canonical("user", "fine"), bad, canonical("assistant", "also fine")]
    expected = cli_reason(tmp_path, settings, db, batch)
    reply = post(client, AGENT, batch)
    assert reply.status_code == 422, reply.text
    problem = reply.json()
    assert problem["reason"] == expected
    assert problem["where"] in {"messages[1]", "messages[2]"}
    assert problem["detail"] == f"{problem['where']}: {expected}"
    assert client.get(f"/v1/agents/{AGENT}/history").status_code == 404  # nothing stored


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"not json", "invalid JSON: Expecting value at column 1"),
        (b'{"messages": [{"kind": "user", "content": NaN}]}', "invalid JSON: NaN is not allowed"),
        (b'{"messages": [{"kind": "user", "kind": "user"}]}', "invalid JSON: duplicate key 'kind'"),
        (b'{"messages": {}}', "'messages' must be an array, got object"),
        (b'{"msgs": []}', "unknown key 'msgs' (expected: messages)"),
        (b"[]", "expected a JSON object with 'messages', got array"),
        (b"\xff", "invalid UTF-8 at byte 1"),
    ],
)
def test_a_bad_body_is_422_with_a_reason(client: TestClient, body: bytes, reason: str) -> None:
    reply = client.post(f"/v1/agents/{AGENT}/messages", content=body)
    assert reply.status_code == 422, reply.text
    assert (reply.json()["where"], reply.json()["reason"]) == ("body", reason)


@pytest.mark.parametrize(
    ("bad", "where", "reason"),
    [
        (
            {"kind": "user", "content": "x", "tokens": 2**31},
            "messages[0]",
            "tokens must be <= 2147483647, got 2147483648",
        ),
        (
            {"kind": "tool_call", "tool_call_id": "t", "name": "n", "input": {"n": 1e400}},
            "body",  # the strict JSON decoder refuses the number before messages are taken apart
            "the number 1e400 is too large to store",
        ),
        ({"kind": "user", "content": "\ud800"}, "messages[0]", "unpaired surrogate"),
        (
            {"kind": "user", "content": "x", "created_at": "0001-01-01T00:00:00+05:00"},
            "messages[0]",
            "outside the supported range once moved to UTC",
        ),
        (
            {"kind": "user", "content": "x", "agent": "team-b/other"},
            "messages[0]",
            "differs from the agent in the URL",
        ),
    ],
)
def test_values_no_database_can_store_are_refused(
    client: TestClient, bad: dict[str, Any], where: str, reason: str
) -> None:
    body = json.dumps({"messages": [bad]}).replace("1e+400", "1e400").replace("Infinity", "1e400")
    reply = client.post(f"/v1/agents/{AGENT}/messages", content=body.encode())
    assert reply.status_code == 422, reply.text
    assert reply.json()["where"] == where
    assert reason in reply.json()["reason"]
    assert client.get(f"/v1/agents/{AGENT}/history").status_code == 404


def test_a_body_over_the_limit_is_413(db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    client = api_client(db, hermetic_settings(monkeypatch, tmp_path, api_max_request_bytes=1_000))
    reply = post(client, AGENT, [canonical("user", "x" * 2_000)])
    assert reply.status_code == 413
    assert "SUMMARIZER_API_MAX_REQUEST_BYTES" in reply.json()["detail"]
