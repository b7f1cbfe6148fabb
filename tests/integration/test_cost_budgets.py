"""Cost you can see and cap, through the real SDK adapters against the local fakes of both providers'
APIs, on both databases: a daily budget spent mid-day sends the agent's next updates to the offline
summarizer (every exchange still folded) with one `cost_budget` alert; the next day the model writes
again and the alert is resolved; `cost` is exactly the recorded tokens times the table's prices."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from summarizer import composition
from summarizer.composition.costs import build_cost_budgets, build_costs
from summarizer.composition.llm import build_engine
from summarizer.llm.offline import OfflineLLM
from summarizer.service.update import UpdateService
from summarizer.storage.cost_port import BUDGET_PATH, COST_BUDGET
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import alerts, summary_runs
from summarizer.testing.fake_chat_completions import FakeChatCompletionsAPI, bad_json_arguments
from summarizer.testing.fake_messages_api import FakeMessagesAPI
from tests.support.http_api import hermetic_settings
from tests.support.workload import module_changes


class ShiftedClock:
    """The wall clock moved by `shift`: the queue's rows come due at wall-clock times, so the service's
    clock may only run ahead of it. The first day starts at least two hours before midnight UTC."""

    def __init__(self) -> None:
        real = datetime.now(UTC)
        self.shift = timedelta(0) if real.hour < 22 else _next_midnight(real) + timedelta(hours=1) - real

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.shift

    def next_day(self) -> datetime:
        """Move to five minutes past the next UTC midnight; that moment."""
        now = self()
        self.shift += _next_midnight(now) + timedelta(minutes=5) - now
        return self()


def _next_midnight(moment: datetime) -> datetime:
    return datetime.combine(moment.date() + timedelta(days=1), time(0), UTC)


# The list prices the shipped table holds, per million tokens: (input, output, cache read, cache write).
LIST_PRICES = {
    "claude-haiku-4-5": (Decimal("1"), Decimal("5"), Decimal("0.10"), Decimal("1.25")),
    "gpt-4o-mini": (Decimal("0.15"), Decimal("0.60"), Decimal("0.075"), Decimal("0.15")),
}
ONE_CALL = {"anthropic": Decimal("0.00195"), "openai": Decimal("0.00027")}
"""What one fake call costs: 1,200 input and 150 output tokens at the model's list price."""


@contextmanager
def _provider(name: str) -> Iterator[tuple[dict[str, Any], Any]]:
    if name == "anthropic":
        with FakeMessagesAPI() as fake:
            yield (
                {"llm": "anthropic", "anthropic_api_key": "sk-ant-fake", "anthropic_base_url": fake.base_url},
                fake,
            )
        return
    with FakeChatCompletionsAPI() as chat:
        yield {"llm": "openai", "openai_api_key": "sk-fake-cost", "openai_base_url": chat.base_url}, chat


def _model_calls(fake: Any, provider: str) -> int:
    return len(fake.requests_to("/v1/messages" if provider == "anthropic" else "/v1/chat/completions"))


def _priced_by_hand(db: Database) -> Decimal:
    """The recorded usage of every run times the list price of its model, computed here on its own."""
    total = Decimal(0)
    with db.read() as conn:
        rows = conn.execute(
            select(
                summary_runs.c.model,
                summary_runs.c.llm_input_tokens,
                summary_runs.c.llm_output_tokens,
                summary_runs.c.llm_cache_read_tokens,
                summary_runs.c.llm_cache_write_tokens,
            )
        ).all()
    for model, inp, out, read, write in rows:
        if model not in LIST_PRICES:
            assert inp == out == 0, model  # only the offline summarizer, which spends nothing
            continue
        p_in, p_out, p_read, p_write = LIST_PRICES[model]
        total += ((inp - read - write) * p_in + out * p_out + read * p_read + write * p_write) / 1_000_000
    return total


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_budget_spent_mid_day_routes_updates_offline_with_one_alert_until_the_day_turns(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, provider: str
) -> None:
    with _provider(provider) as (wiring, fake):
        settings = hermetic_settings(
            monkeypatch,
            tmp_path,
            window_tokens=200,
            batch_size=1,
            max_batch_exchanges=1,
            batch_max_wait=0,
            llm_max_retries=0,
            **wiring,
        )
        clock = ShiftedClock()
        day1 = clock()
        engine = build_engine(settings)
        service = UpdateService(
            composition.build_sql_store(db),
            engine,
            composition.build_worker_config(settings),
            clock=clock,
            fallback=engine.with_llm(OfflineLLM()),
            budgets=build_cost_budgets(settings, db),
        )
        api = composition.build_summarizer(settings, db)
        costs = build_costs(settings, db)
        api.record_batch("bot", module_changes(0, 3))
        costs.set_budget("bot", ONE_CALL[provider] * 2, day1)  # two model updates a day
        api.record_batch("bot", module_changes(3, 9))
        service.drain("bot")
        assert api.unsummarized("bot") == 0  # degrade, never drop
        assert _model_calls(fake, provider) == 2
        with db.read() as conn:
            paths = list(conn.execute(select(summary_runs.c.path).order_by(summary_runs.c.id)).scalars())
            raised = conn.execute(
                select(alerts.c.agent_id, alerts.c.resolved_at).where(alerts.c.kind == COST_BUDGET)
            ).all()
        assert len(paths) >= 5
        assert paths[:2] == ["append", "append"]
        assert set(paths[2:]) == {BUDGET_PATH}
        assert raised == [("bot", None)]
        assert costs.budget("bot", clock()).spent_today_usd == ONE_CALL[provider] * 2

        # Later the same day: still offline, still one alert.
        api.record_batch("bot", module_changes(12, 4))
        service.drain("bot")
        assert _model_calls(fake, provider) == 2
        with db.read() as conn:
            assert conn.execute(select(alerts.c.id).where(alerts.c.kind == COST_BUDGET)).all().__len__() == 1

        day2 = clock.next_day()  # the day turned: the model writes again and yesterday's alert is resolved
        api.record_batch("bot", module_changes(16, 4))
        service.drain("bot")
        assert api.unsummarized("bot") == 0
        assert _model_calls(fake, provider) == 4  # two more, then the new day's budget is spent too
        with db.read() as conn:
            day1_alert = (
                conn.execute(
                    select(alerts.c.resolved_at).where(alerts.c.kind == COST_BUDGET).order_by(alerts.c.id)
                )
                .scalars()
                .first()
            )
        assert day1_alert is not None
        assert day2 <= day1_alert < day2 + timedelta(minutes=1)

        since, until = day1 - timedelta(hours=1), day2 + timedelta(hours=1)
        report = costs.report(since=since, until=until, by="day")
        assert report.total_usd == _priced_by_hand(db) == ONE_CALL[provider] * 4
        assert [(line.key, line.usd) for line in report.lines] == [
            (day1.date().isoformat(), ONE_CALL[provider] * 2),
            (day2.date().isoformat(), ONE_CALL[provider] * 2),
        ]
        by_model = costs.report(since=since, until=until, by="model")
        assert [line.key for line in by_model.lines] == [fake_model(provider)]
        assert by_model.unpriced == ()


def fake_model(provider: str) -> str:
    return "claude-haiku-4-5" if provider == "anthropic" else "gpt-4o-mini"


def test_answers_the_gate_refused_are_priced_at_the_model_that_wrote_them(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An update the offline summarizer finished after the model's answers were refused keeps those
    answers' tokens with the model that wrote them: `cost` prices them (not as the free offline)."""
    with FakeChatCompletionsAPI(chat_default=lambda body: bad_json_arguments()) as chat:
        settings = hermetic_settings(
            monkeypatch,
            tmp_path,
            llm="openai",
            openai_api_key="sk-fake-cost",
            openai_base_url=chat.base_url,
            window_tokens=200,
            batch_size=1,
            max_batch_exchanges=1,
            batch_max_wait=0,
            llm_max_retries=0,
        )
        api = composition.build_summarizer(settings, db)
        api.record_batch("bot", module_changes(0, 4))
        composition.build_update_service(settings, db).run("bot")
    with db.read() as conn:
        path, model, spent = conn.execute(
            select(summary_runs.c.path, summary_runs.c.model, summary_runs.c.llm_input_tokens)
        ).one()
    assert (path, model) == ("offline-fallback", "gpt-4o-mini")
    assert spent > 0
    now = datetime.now(UTC)
    report = build_costs(settings, db).report(since=now - timedelta(hours=1), until=now + timedelta(hours=1))
    assert report.unpriced == ()
    assert report.total_usd == ONE_CALL["openai"]  # the one refused call, at the model's list price
