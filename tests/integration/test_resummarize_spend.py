"""What a `resummarize` rebuild spent is on record whatever becomes of it, on both databases: the model
erring on a later batch, the process interrupted after some calls, or an update committing meanwhile
leaves the summary as it was and one run record with the tokens of every call made (the real OpenAI
adapter against the local fake API); and a rebuild a spent budget sends offline raises the agent's
`cost_budget` alert once a day, as an update does."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from summarizer import composition
from summarizer.composition.costs import build_costs
from summarizer.service import rebuild as rebuild_module
from summarizer.service.poison import fold as real_fold
from summarizer.service.runs import REBUILD_PATH
from summarizer.service.update import UpdateService
from summarizer.settings import Settings
from summarizer.storage.cost_port import BUDGET_PATH, COST_BUDGET
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import alerts, summaries, summary_runs, summary_versions
from summarizer.testing.fake_chat_completions import FakeChatCompletionsAPI, default_chat_reply, server_error
from summarizer.testing.fake_http import Reply
from tests.support.http_api import (
    api_client,
    cli_settings,
    exchange,
    fake_openai_settings,
    invoke,
)
from tests.support.workload import module_changes

AGENT = "bot"
ONE_CALL = Decimal("0.00027")
"""One fake call: 1,200 input and 150 output tokens of gpt-4o-mini ($0.15 and $0.60 per million)."""


def _settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, url: str) -> Settings:
    return fake_openai_settings(monkeypatch, tmp_path, url, llm_max_retries=0)


class FailingAfter:
    """The fake API's default reply, and a server error from call `fail_at` on (0: never)."""

    def __init__(self) -> None:
        self.calls = 0
        self.fail_at = 0

    def __call__(self, body: Mapping[str, Any]) -> Reply:
        self.calls += 1
        if self.fail_at and self.calls >= self.fail_at:
            return server_error()
        return default_chat_reply(body)


def _runs(db: Database, after: int = 0) -> list[Any]:
    r = summary_runs.c
    stmt = select(r.id, r.outcome, r.path, r.model, r.llm_input_tokens, r.llm_output_tokens, r.error)
    with db.read() as conn:
        return list(conn.execute(stmt.where(r.id > after).order_by(r.id)))


def _version(db: Database) -> tuple[int, int]:
    """The summary's version and how many versions `resummarize` made."""
    with db.read() as conn:
        version = conn.execute(select(summaries.c.version).where(summaries.c.agent_id == AGENT)).scalar_one()
        rebuilt = conn.execute(
            select(func.count()).where(summary_versions.c.made_by == "resummarize")
        ).scalar_one()
    return int(version), int(rebuilt)


def _total_usd(settings: Settings, db: Database) -> Decimal:
    now = datetime.now(UTC)
    report = build_costs(settings, db).report(since=now - timedelta(hours=1), until=now + timedelta(hours=1))
    assert report.unpriced == ()
    return report.total_usd


@pytest.fixture
def summarized(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[tuple[Settings, UpdateService, FailingAfter]]:
    """An agent whose summary covers several exchanges (one model call each), a rebuild requested."""
    replies = FailingAfter()
    with FakeChatCompletionsAPI(chat_default=replies) as chat:
        settings = _settings(monkeypatch, tmp_path, chat.base_url)
        composition.build_summarizer(settings, db).record_batch(AGENT, module_changes(0, 8))
        service = composition.build_update_service(settings, db)
        service.drain()
        assert replies.calls >= 4, "the rebuild needs batches to fail between"
        composition.build_provenance(settings, db).resummarize(AGENT)
        yield settings, service, replies


def test_a_rebuild_failing_partway_records_every_call_made(
    db: Database, summarized: tuple[Settings, UpdateService, FailingAfter]
) -> None:
    settings, service, replies = summarized
    updates, before = replies.calls, max(r.id for r in _runs(db))
    version = _version(db)
    replies.fail_at = updates + 3  # the rebuild's third batch
    result = service.run(AGENT)
    assert result.outcome.value == "retry"
    (failed,) = _runs(db, before)
    assert (failed.outcome, failed.path, failed.model) == ("retry", REBUILD_PATH, "gpt-4o-mini")
    assert (failed.llm_input_tokens, failed.llm_output_tokens) == (2 * 1200, 2 * 150)
    assert failed.error.startswith("LLMTransientError: HTTP 500")
    assert _version(db) == version  # nothing of the rebuild was committed
    assert _total_usd(settings, db) == ONE_CALL * (updates + 2)


def test_an_interrupted_rebuild_records_the_calls_made_before_it_stopped(
    db: Database,
    summarized: tuple[Settings, UpdateService, FailingAfter],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings, service, replies = summarized
    updates, before = replies.calls, max(r.id for r in _runs(db))
    version = _version(db)
    folds: list[int] = []

    def interrupted_fold(*args: Any, **kwargs: Any) -> Any:
        folds.append(1)
        if len(folds) == 3:
            raise KeyboardInterrupt
        return real_fold(*args, **kwargs)

    monkeypatch.setattr(rebuild_module, "fold", interrupted_fold)
    with pytest.raises(KeyboardInterrupt):
        service.run(AGENT)
    (spent,) = _runs(db, before)
    assert (spent.outcome, spent.path, spent.model) == ("retry", REBUILD_PATH, "gpt-4o-mini")
    assert spent.llm_input_tokens == 2 * 1200
    assert spent.error == "interrupted (KeyboardInterrupt) after 2 batch(es)"
    assert _version(db) == version
    assert _total_usd(settings, db) == ONE_CALL * (updates + 2)


def test_a_rebuild_an_update_overtook_records_what_it_spent(
    db: Database,
    summarized: tuple[Settings, UpdateService, FailingAfter],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings, service, replies = summarized
    updates, before = replies.calls, max(r.id for r in _runs(db))

    def overtaken_fold(*args: Any, **kwargs: Any) -> Any:
        folded = real_fold(*args, **kwargs)
        with db.write() as conn:  # another writer commits a version meanwhile
            conn.execute(update(summaries).values(version=summaries.c.version + 1))
        return folded

    monkeypatch.setattr(rebuild_module, "fold", overtaken_fold)
    assert service.run(AGENT).outcome.value == "stale"
    (spent,) = _runs(db, before)
    assert (spent.outcome, spent.path, spent.model) == ("stale", REBUILD_PATH, "gpt-4o-mini")
    rebuilt = replies.calls - updates
    assert rebuilt >= 3
    assert spent.llm_input_tokens == rebuilt * 1200
    assert _version(db)[1] == 0
    assert _total_usd(settings, db) == ONE_CALL * replies.calls


# ----- the budget's alert -------------------------------------------------------------------------------


def _budget_alerts(db: Database) -> list[Any]:
    a = alerts.c
    with db.read() as conn:
        return list(conn.execute(select(a.agent_id, a.resolved_at).where(a.kind == COST_BUDGET)))


def _record(client: TestClient, first: int, count: int) -> None:
    messages = [m for n in range(first, first + count) for m in exchange(n)]
    reply = client.post("/v1/agents/team-a/coder/messages", json={"messages": messages})
    assert reply.status_code == 200, reply.text


def test_a_rebuild_a_spent_budget_sends_offline_raises_the_alert_once_a_day(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings = cli_settings(monkeypatch, tmp_path, db)
    client = api_client(db, settings)
    _record(client, 0, 6)
    service = composition.build_update_service(settings, db)
    service.drain()
    invoke("agent", "budget-cost", "team-a/coder", "0")
    assert _budget_alerts(db) == []
    invoke("resummarize", "team-a/coder")
    service.drain()
    assert _budget_alerts(db) == [("team-a/coder", None)]
    invoke("resummarize", "team-a/coder")  # the same day: no second alert, from a rebuild or an update
    service.drain()
    before = max(r.id for r in _runs(db))
    _record(client, 6, 3)
    service.drain()
    assert {r.path for r in _runs(db, before)} == {BUDGET_PATH}
    assert _budget_alerts(db) == [("team-a/coder", None)]
