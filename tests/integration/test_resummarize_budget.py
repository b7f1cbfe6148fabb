"""`resummarize` under the daily cost budgets, through the CLI on both databases: a rebuild records what
its model calls cost; with the agent's budget spent it is made by the offline summarizer and the command
says so; and a run the offline summarizer folds for an agent with summary instructions says they were
not followed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from summarizer.composition import build_update_service
from summarizer.service.runs import NOT_FOLLOWED, REBUILD_PATH
from summarizer.settings import Settings
from summarizer.storage.cost_port import BUDGET_PATH
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import summary_runs
from tests.support.http_api import api_client, cli_settings, exchange, invoke

AGENT = "team-a/coder"
SPENT = "the agent's daily cost budget is spent ($0 of $0)"


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    return cli_settings(monkeypatch, tmp_path, db)


def _record(client: TestClient, first: int, count: int) -> None:
    messages = [m for n in range(first, first + count) for m in exchange(n)]
    reply = client.post(f"/v1/agents/{AGENT}/messages", json={"messages": messages})
    assert reply.status_code == 200, reply.text


def _runs(db: Database, after: int = 0) -> list[Any]:
    r = summary_runs.c
    with db.read() as conn:
        stmt = select(r.id, r.path, r.model, r.llm_input_tokens, r.error).where(r.id > after).order_by(r.id)
        return list(conn.execute(stmt))


def _last_id(db: Database) -> int:
    return max((row.id for row in _runs(db)), default=0)


def test_a_rebuild_records_what_its_model_calls_cost(db: Database, settings: Settings) -> None:
    _record(api_client(db, settings), 0, 6)
    service = build_update_service(settings, db)
    service.drain()
    before = _last_id(db)
    said = invoke("resummarize", AGENT)
    assert "rebuild requested" in said
    assert "note:" not in said
    service.drain()
    rebuilt = [r for r in _runs(db, before) if r.path == REBUILD_PATH]
    assert rebuilt
    assert all(r.model == "fake-llm" and r.llm_input_tokens > 0 for r in rebuilt)
    assert invoke("versions", "list", AGENT).splitlines()[-1].endswith("resummarize")
    assert f"over {len(_runs(db))} runs" in invoke("cost", AGENT)


def test_a_spent_budget_rebuilds_offline_and_the_command_says_so(db: Database, settings: Settings) -> None:
    _record(api_client(db, settings), 0, 6)
    service = build_update_service(settings, db)
    service.drain()
    invoke("agent", "budget-cost", AGENT, "0")
    before = _last_id(db)
    said = invoke("resummarize", AGENT)
    assert f"note: {SPENT}: the offline summarizer will rebuild it" in said
    service.drain()
    rebuilt = [r for r in _runs(db, before) if r.path == BUDGET_PATH]
    assert rebuilt
    assert not [r for r in _runs(db, before) if r.path == REBUILD_PATH]
    for run in rebuilt:
        assert (run.model, run.llm_input_tokens) == ("offline-extractive", 0)
        assert f"folded offline: {SPENT}" in run.error
        assert NOT_FOLLOWED not in run.error  # the agent has no instructions
    assert "[offline]" in invoke("summary", AGENT)


def test_an_offline_run_for_an_agent_with_instructions_says_they_were_not_followed(
    db: Database, settings: Settings
) -> None:
    client = api_client(db, settings)
    _record(client, 0, 3)
    invoke("agent", "instructions", AGENT, "Keep every file path.")
    invoke("agent", "budget-cost", AGENT, "0")
    service = build_update_service(settings, db)
    service.drain()
    offline = _runs(db)
    assert offline
    assert all(r.path == BUDGET_PATH and NOT_FOLLOWED in r.error for r in offline)
    invoke("resummarize", AGENT)
    before = _last_id(db)
    service.drain()
    rebuilt = _runs(db, before)
    assert rebuilt
    assert all(NOT_FOLLOWED in r.error for r in rebuilt)
    invoke("agent", "budget-cost", AGENT, "none")
    _record(client, 3, 3)
    before = _last_id(db)
    service.drain()
    followed = _runs(db, before)
    assert followed
    assert all(r.model == "fake-llm" and (r.error is None or NOT_FOLLOWED not in r.error) for r in followed)
