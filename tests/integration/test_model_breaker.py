"""The per-agent model breaker: a model that keeps failing one agent is routed around for that agent (its
updates go straight to the offline summarizer, no model call), with one warning alert, and the first
update the model folds again after the cool-down resolves it. Through the official OpenAI SDK against
the local fake of the Chat Completions API, on both databases."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from summarizer import composition
from summarizer.service.model_routing import ModelRouting
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import alerts, summary_runs
from summarizer.storage.values import MODEL_DEGRADED, RecentRun
from summarizer.testing.fake_chat_completions import (
    DEFAULT_TOOL,
    FakeChatCompletionsAPI,
    Reply,
    bad_json_arguments,
    default_chat_reply,
)
from tests.contract.support import T0
from tests.support.http_api import hermetic_settings
from tests.support.workload import module_changes


def _tool_of(body: Mapping[str, Any]) -> str:
    choice = body.get("tool_choice")
    return str(choice["function"]["name"]) if isinstance(choice, dict) else DEFAULT_TOOL


def test_a_model_that_keeps_failing_an_agent_is_routed_around_with_one_alert(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    healthy = [False]

    def answer(body: Mapping[str, Any]) -> Reply:
        return default_chat_reply(body) if healthy[0] else bad_json_arguments(_tool_of(body))

    with FakeChatCompletionsAPI(chat_default=answer) as fake:
        common: dict[str, Any] = {
            "llm": "openai",
            "openai_api_key": "sk-fake-breaker",
            "openai_base_url": fake.base_url,
            "llm_max_retries": 0,
            "window_tokens": 200,
            "batch_size": 1,
            "max_batch_exchanges": 1,
            "batch_max_wait": 0,
            "model_breaker_threshold": 2,
        }
        settings = hermetic_settings(monkeypatch, tmp_path, model_breaker_seconds=3600, **common)
        api = composition.build_summarizer(settings, db)
        service = composition.build_update_service(settings, db)
        evicted = api.record_batch("bot", module_changes(0, 12)).evicted_exchanges
        assert evicted >= 4
        service.drain("bot")
        assert api.unsummarized("bot") == 0
        with db.read() as conn:
            paths = list(conn.execute(select(summary_runs.c.path).order_by(summary_runs.c.id)).scalars())
            raised = conn.execute(select(alerts.c.kind, alerts.c.resolved_at)).all()
        asked = len(fake.requests_to("/v1/chat/completions"))
        assert paths[:2] == ["offline-fallback"] * 2
        assert len(paths) == evicted
        assert set(paths[2:]) == {"offline-routed"}
        assert asked == 2  # one failed answer per degraded update (single exchanges: no split), then none
        assert raised == [(MODEL_DEGRADED, None)]

        # After the cool-down the model is asked again; its first fold closes the incident.
        healthy[0] = True
        settings = hermetic_settings(monkeypatch, tmp_path, model_breaker_seconds=0.001, **common)
        service = composition.build_update_service(settings, db)
        api.record_batch("bot", module_changes(100, 3))
        service.drain("bot")
        with db.read() as conn:
            last = (
                conn.execute(select(summary_runs.c.path).order_by(summary_runs.c.id.desc())).scalars().first()
            )
            still_open = conn.execute(select(alerts.c.id).where(alerts.c.resolved_at.is_(None))).all()
        assert last not in ("offline-fallback", "offline-routed")
        assert len(fake.requests_to("/v1/chat/completions")) > asked
        assert still_open == []


def _run(path: str | None, minutes: int, outcome: str = "ok") -> RecentRun:
    return RecentRun(outcome, path, T0 + timedelta(minutes=minutes))


def test_the_routing_decision_reads_the_streak_of_degraded_updates() -> None:
    routing = ModelRouting(threshold=2, cooldown_seconds=600)
    fell_back = [_run("offline-fallback", 10), _run("offline-fallback", 5), _run("append", 0)]
    assert routing.routed_until(fell_back) is not None
    assert routing.routed_until(fell_back[1:]) is None  # one degraded update is not a streak
    assert routing.opens_now(fell_back[1:])
    assert not routing.opens_now(fell_back)
    retried = [_run(None, 11, "retry"), *fell_back]  # a failed attempt neither breaks nor extends it
    assert routing.degraded_streak(retried) == 2
    routed = [_run("offline-routed", 12), *fell_back]
    until = routing.routed_until(routed)
    assert until is not None
    assert until == fell_back[0].finished_at + timedelta(minutes=10)
    assert routing.was_open(routed)
    assert not routing.was_open([_run("append", 20), *routed])
