"""Answers the validation gate refuses were paid for: their runs record the model that wrote them, so
`cost` prices them, through the real OpenAI adapter against the local fake API, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from summarizer import composition
from summarizer.composition.costs import build_costs
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import summary_runs
from summarizer.storage.sql.statements.schema import summary_update_queue as queue
from summarizer.testing.fake_chat_completions import DEFAULT_TOOL, FakeChatCompletionsAPI, tool_call_reply
from tests.support.http_api import fake_openai_settings
from tests.support.workload import module_changes

ONE_CALL = Decimal("0.00027")
"""One fake call: 1,200 input and 150 output tokens of gpt-4o-mini ($0.15 and $0.60 per million)."""


def refused(body: Any) -> Any:
    """Well-formed tool arguments the gate refuses: no operation at all."""
    return tool_call_reply(DEFAULT_TOOL, {"add": [], "drop": []}, model="gpt-4o-mini-2024-07-18")


def _settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, url: str, **overrides: Any) -> Any:
    return fake_openai_settings(monkeypatch, tmp_path, url, **overrides)


def _runs(db: Database) -> list[Any]:
    with db.read() as conn:
        r = summary_runs.c
        return list(conn.execute(select(r.outcome, r.path, r.model, r.llm_input_tokens).order_by(r.id)))


def _cost(settings: Any, db: Database) -> Any:
    now = datetime.now(UTC)
    return build_costs(settings, db).report(since=now - timedelta(hours=1), until=now + timedelta(hours=1))


def test_a_refused_answer_retried_later_is_priced_at_its_model(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with FakeChatCompletionsAPI(chat_default=refused) as chat:
        settings = _settings(monkeypatch, tmp_path, chat.base_url)
        api = composition.build_summarizer(settings, db)
        api.record_batch("bot", module_changes(0, 4))
        composition.build_update_service(settings, db).run("bot")
    (run,) = _runs(db)
    assert (run.outcome, run.model) == ("retry", "gpt-4o-mini-2024-07-18")
    assert run.llm_input_tokens == 1200
    report = _cost(settings, db)
    assert (report.unpriced, report.total_usd) == ((), ONE_CALL)


def test_refused_answers_an_offline_fold_finished_are_priced_at_their_model(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with FakeChatCompletionsAPI(chat_default=refused) as chat:
        settings = _settings(monkeypatch, tmp_path, chat.base_url, llm_max_retries=0)
        api = composition.build_summarizer(settings, db)
        api.record_batch("bot", module_changes(0, 4))
        service = composition.build_update_service(settings, db)
        service.run("bot")  # refused: a retry (a rejection is split only on a later attempt)
        with db.write() as conn:  # due again at once
            conn.execute(queue.update().values(available_at=datetime.now(UTC) - timedelta(seconds=1)))
        service.run("bot")
    runs = _runs(db)
    assert [(r.outcome, r.path, r.model) for r in runs][-1] == (
        "ok",
        "offline-fallback",
        "gpt-4o-mini-2024-07-18",
    )
    report = _cost(settings, db)
    assert report.unpriced == ()
    assert report.total_usd == ONE_CALL * len(runs)
