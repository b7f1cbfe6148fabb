"""A real embedded worker process summarizing through the OpenAI SDK against the local fake Chat
Completions API, and riding out an outage of it on the fallback provider (the Anthropic SDK against the
fake Messages API) without parking anyone."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from summarizer.composition import build_database
from summarizer.settings import load_settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.migrations import ensure_schema
from summarizer.storage.sql.statements.schema import summary_runs
from summarizer.testing.fake_chat_completions import FakeChatCompletionsAPI, unauthorized
from summarizer.testing.fake_messages_api import MESSAGES_PATH, FakeMessagesAPI
from tests.support.fleet import Fleet, fleet_env, wait_for
from tests.support.workload import assert_folded_exactly_once, facts, feed, make_store

pytestmark = pytest.mark.slow

KEY = "sk-e2e"


@pytest.fixture
def chat_api() -> Iterator[FakeChatCompletionsAPI]:
    with FakeChatCompletionsAPI(api_key=KEY, models=("llama3.1:8b",)) as fake:
        yield fake


@pytest.fixture
def embedded_db(tmp_path: Path) -> Iterator[Database]:
    db = build_database(load_settings(database_url="", data_dir=tmp_path / "data"))
    ensure_schema(db, auto_upgrade=True)
    yield db
    db.dispose()


def provider_env(tmp_path: Path, chat_api: FakeChatCompletionsAPI, **overrides: str) -> dict[str, str]:
    env = fleet_env(tmp_path, llm="openai", openai_model="llama3.1:8b", **overrides)
    env.update({"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": chat_api.base_url, "ANTHROPIC_API_KEY": ""})
    return env


def failed_runs(db: Database) -> int:
    with db.read() as conn:
        return int(conn.execute(select(func.count()).where(summary_runs.c.outcome != "ok")).scalar_one())


def test_a_worker_summarizes_through_an_openai_compatible_server(
    chat_api: FakeChatCompletionsAPI, embedded_db: Database, tmp_path: Path
) -> None:
    fleet = Fleet(provider_env(tmp_path, chat_api), tmp_path)
    try:
        fleet.cli("worker", "worker", "-c", "2")
        store = make_store(embedded_db)
        for agent_id in ("o1", "o2"):
            feed(store, agent_id, 8)
        wait_for(lambda: all(facts(embedded_db, a).folded >= 5 for a in ("o1", "o2")), 120, "summaries")
    finally:
        fleet.close()
    for agent_id in ("o1", "o2"):
        assert_folded_exactly_once(embedded_db, agent_id, complete=False)
    sent = chat_api.chat_requests()
    assert sent
    assert {r.body["model"] for r in sent} == {"llama3.1:8b"}
    assert {r.headers["authorization"] for r in sent} == {f"Bearer {KEY}"}
    assert failed_runs(embedded_db) == 0


def test_an_outage_of_the_primary_is_ridden_out_on_the_fallback(
    chat_api: FakeChatCompletionsAPI, embedded_db: Database, tmp_path: Path
) -> None:
    with FakeMessagesAPI() as messages_api:
        env = provider_env(tmp_path, chat_api, llm_fallback="anthropic", llm_fallback_cooldown="0.5")
        env.update({"ANTHROPIC_API_KEY": "sk-ant", "ANTHROPIC_BASE_URL": messages_api.base_url})
        # The fallback answers while the fleet's breaker on the primary is open; its probes back off from
        # 1 s up to 4 s here, so the primary is tried again soon after the outage ends.
        env.update({"SUMMARIZER_BREAKER_PROBE_SECONDS": "1", "SUMMARIZER_BREAKER_MAX_PROBE_SECONDS": "4"})
        chat_api.start_outage(unauthorized())
        fleet = Fleet(env, tmp_path)
        try:
            fleet.cli("worker", "worker", "-c", "2")
            store = make_store(embedded_db)
            for agent_id in ("f1", "f2", "f3"):
                feed(store, agent_id, 8)
            wait_for(
                lambda: all(facts(embedded_db, a).folded >= 5 for a in ("f1", "f2", "f3")), 120, "summaries"
            )
            assert messages_api.requests_to(MESSAGES_PATH)
            during_outage = len(chat_api.chat_requests())

            chat_api.end_outage()
            feed(store, "after", 8)
            wait_for(lambda: facts(embedded_db, "after").folded >= 5, 120, "summaries after the outage")
            # The breaker probes the primary with an update that comes due after its probe time: keep work
            # coming (one more agent every 2 s) until one has gone to the primary.
            fed = [time.monotonic()]

            def primary_probed() -> bool:
                if len(chat_api.chat_requests()) > during_outage:
                    return True
                if time.monotonic() - fed[-1] > 2:
                    feed(store, f"probe{len(fed)}", 4)
                    fed.append(time.monotonic())
                return False

            wait_for(primary_probed, 60, "the primary to be probed")
        finally:
            fleet.close()
    for agent_id in ("f1", "f2", "f3", "after"):
        assert facts(embedded_db, agent_id).queue_state != "failed"
        assert_folded_exactly_once(embedded_db, agent_id, complete=False)
    assert failed_runs(embedded_db) == 0  # nobody's retry budget was spent on the outage
