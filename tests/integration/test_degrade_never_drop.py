"""Degrade, never drop: whatever a model answers, every evicted exchange ends `summarized`, by the model
or by the offline summarizer; no agent is parked for a bad answer, and the bad answers' usage is recorded.
Through the official OpenAI SDK against the local fake of the Chat Completions API, on both databases."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from summarizer import composition
from summarizer.api import Summarizer
from summarizer.engine.ports import AnswerUnusable, LLMAnswer, LLMRequest
from summarizer.service.ledger import ledger_entries
from summarizer.service.poison import Folding, fold
from summarizer.service.update import UpdateService
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import summary_runs, summary_update_queue
from summarizer.testing.fake_chat_completions import (
    DEFAULT_TOOL,
    FakeChatCompletionsAPI,
    Reply,
    bad_json_arguments,
    length_cut,
    malformed_body,
    text_reply,
    tool_call_reply,
)
from tests.support.http_api import hermetic_settings
from tests.support.workload import module_changes

KEY = "sk-fake-degrade"
BAD_ANSWERS: dict[str, Callable[[str], Reply]] = {
    "cut tool arguments": lambda tool: bad_json_arguments(tool),
    "finish_reason length": lambda tool: length_cut(tool),
    "no tool call": lambda _tool: text_reply("Sure! Here is a summary of the conversation."),
    "a proxy's HTML page": lambda _tool: malformed_body(),
}


def _tool_of(body: Mapping[str, Any]) -> str:
    choice = body.get("tool_choice")
    return (
        str(choice.get("function", {}).get("name", DEFAULT_TOOL))
        if isinstance(choice, dict)
        else DEFAULT_TOOL
    )


def _drain_all(service: UpdateService, api: Summarizer, agent: str) -> None:
    """Run updates, re-arming small leftovers as the dispatcher does, until nothing waits (bounded)."""
    for _ in range(50):
        service.drain(agent)
        if api.unsummarized(agent) == 0:
            return
        service.due()
    raise AssertionError(f"{api.unsummarized(agent)} exchange(s) still waiting")


@pytest.fixture(params=sorted(BAD_ANSWERS))
def bad_model(request: pytest.FixtureRequest) -> Iterator[FakeChatCompletionsAPI]:
    answer = BAD_ANSWERS[request.param]
    with FakeChatCompletionsAPI(chat_default=lambda body: answer(_tool_of(body))) as fake:
        yield fake


def test_every_evicted_exchange_is_summarized_whatever_the_model_answers(
    db: Database, bad_model: FakeChatCompletionsAPI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings = hermetic_settings(
        monkeypatch,
        tmp_path,
        llm="openai",
        openai_api_key=KEY,
        openai_base_url=bad_model.base_url,
        llm_max_retries=0,
        window_tokens=200,
        batch_size=3,
        batch_max_wait=0,
    )
    api = composition.build_summarizer(settings, db)
    service = composition.build_update_service(settings, db)
    report = api.record_batch("bot", module_changes(0, 10))
    assert report.evicted_exchanges >= 5
    _drain_all(service, api, "bot")

    facts = composition.build_sql_store(db).provenance("bot")
    assert facts is not None
    entries = ledger_entries(facts)
    evicted = [e for e in entries if e.state != "in_window"]
    assert len(evicted) == report.evicted_exchanges
    assert {e.state for e in evicted} == {"summarized"}, [(e.id, e.state, e.reason) for e in evicted]
    assert facts.summary is not None
    assert all(item.text.startswith("[offline] ") for item in facts.summary.items)
    with db.read() as conn:
        runs = conn.execute(select(summary_runs.c.path, summary_runs.c.llm_input_tokens)).all()
        states = set(conn.execute(select(summary_update_queue.c.state)).scalars())
    assert "failed" not in states  # never parked
    # the model was asked until the agent's model breaker opened (3 in a row), then routed around
    paths = [path for path, _ in runs]
    assert paths[:3] == ["offline-fallback"] * 3
    assert set(paths[3:]) <= {"offline-routed"}
    asked = len(bad_model.requests_to("/v1/chat/completions"))
    assert asked >= 3


def test_the_usage_of_unusable_answers_is_recorded(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with FakeChatCompletionsAPI(chat_default=lambda body: bad_json_arguments(_tool_of(body))) as fake:
        settings = hermetic_settings(
            monkeypatch,
            tmp_path,
            llm="openai",
            openai_api_key=KEY,
            openai_base_url=fake.base_url,
            llm_max_retries=0,
            window_tokens=200,
            batch_size=3,
            batch_max_wait=0,
        )
        api = composition.build_summarizer(settings, db)
        service = composition.build_update_service(settings, db)
        api.record_batch("bot", module_changes(0, 6))
        _drain_all(service, api, "bot")
        calls = len(fake.requests_to("/v1/chat/completions"))
    with db.read() as conn:
        billed = conn.execute(select(summary_runs.c.llm_input_tokens, summary_runs.c.llm_output_tokens)).all()
    assert calls > 0
    assert sum(i for i, _ in billed) == 1200 * calls  # the fake's usage per answer, none lost
    assert sum(o for _, o in billed) == 150 * calls


class _NeverFolds:
    def complete(self, request: LLMRequest) -> LLMAnswer:
        raise AnswerUnusable("refused", cause="refusal")


def test_unsummarizable_is_only_what_the_offline_summarizer_cannot_take_either() -> None:
    """With the offline summarizer as fallback an exchange is given up on only when the fallback's answer
    fails too; the offline summarizer always answers, so a fallback that cannot shows the path."""
    from summarizer.domain.tokens import ByteEstimateCounter
    from summarizer.engine.engine import SummaryEngine
    from summarizer.llm.offline import OfflineLLM
    from tests.contract.support import T0, exchange

    model = SummaryEngine(_NeverFolds(), ByteEstimateCounter())
    batch = [exchange(1), exchange(2), exchange(3)]
    degraded = fold(
        Folding(model, model.with_llm(OfflineLLM())), None, "a", batch, T0, split_rejections=False
    )
    assert degraded.given_up is None
    assert degraded.degraded is not None
    assert degraded.exchanges == (batch[0],)
    assert degraded.outcome is not None
    given_up = fold(Folding(model, model), None, "a", batch, T0, split_rejections=False)
    assert given_up.given_up is not None
    assert "the offline summarizer could not either" in given_up.given_up.cause


def test_answers_citing_exchanges_that_do_not_exist_are_retried_split_then_degraded(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The real model's answer `unknown exchange ids [108]`: refused by the gate every time, billed every
    time; the agent is retried, split and folded offline, never parked, and every answer's usage is kept."""
    hallucinated = {"add": [{"exchange_ids": [108], "text": "Did things.", "importance": "medium"}]}

    def answer(body: Mapping[str, Any]) -> Reply:
        return tool_call_reply(_tool_of(body), hallucinated)

    with FakeChatCompletionsAPI(chat_default=answer) as fake:
        settings = hermetic_settings(
            monkeypatch,
            tmp_path,
            llm="openai",
            openai_api_key=KEY,
            openai_base_url=fake.base_url,
            llm_max_retries=0,
            window_tokens=200,
            batch_size=3,
            batch_max_wait=0,
            retry_base_seconds=0.01,
            retry_max_seconds=0.01,
        )
        api = composition.build_summarizer(settings, db)
        service = composition.build_update_service(settings, db)
        report = api.record_batch("bot", module_changes(0, 8))
        for _ in range(100):  # retries back off a few milliseconds: run until nothing waits
            service.due()
            service.drain("bot")
            if api.unsummarized("bot") == 0:
                break
        calls = len(fake.requests_to("/v1/chat/completions"))
    assert api.unsummarized("bot") == 0
    facts = composition.build_sql_store(db).provenance("bot")
    assert facts is not None
    states = {e.state for e in ledger_entries(facts) if e.state != "in_window"}
    assert states == {"summarized"}
    assert report.evicted_exchanges > 0
    with db.read() as conn:
        runs = conn.execute(select(summary_runs.c.outcome, summary_runs.c.llm_input_tokens)).all()
        parked = conn.execute(select(summary_update_queue.c.state)).scalars().all()
    assert "parked" not in {outcome for outcome, _ in runs}
    assert "failed" not in parked
    assert sum(tokens for _, tokens in runs) == 1200 * calls
