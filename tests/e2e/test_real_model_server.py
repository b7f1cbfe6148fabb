"""A real model server nobody here wrote, in the loop: llama-cpp-python's OpenAI-compatible server running
SmolLM2-135M-Instruct, a real worker process and the bundled coding-agent conversation. Whatever the small
model answers, no agent is parked, every evicted exchange ends `summarized` (by the model or the offline
fallback), no view says nothing left the window, and the model's usage is recorded."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from summarizer.cli.commands_demo import rebased
from summarizer.composition import build_database, build_sql_store, build_summarizer
from summarizer.ingest.reader import read_records
from summarizer.samples import SAMPLE_AGENT, sample_path
from summarizer.service.ledger import ledger_entries
from summarizer.settings import load_settings
from summarizer.storage.sql.migrations import ensure_schema
from summarizer.storage.sql.statements.schema import summary_runs, summary_update_queue
from tests.support.fleet import Fleet, RedisServer, fleet_env, wait_for
from tests.support.llama_server import MODEL_ALIAS, llama_server
from tests.support.services import fresh_postgres_database, migrate

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

EXCHANGES = 7


@pytest.fixture(
    params=["embedded", pytest.param("postgresql", marks=[pytest.mark.postgres, pytest.mark.redis])]
)
def urls(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(database URL, broker URL): the embedded default, or PostgreSQL with a private Redis broker."""
    if request.param == "embedded":
        yield "", ""
        return
    redis = request.getfixturevalue("redis_server")
    assert isinstance(redis, RedisServer)
    for url in fresh_postgres_database("summarizer_real_model"):
        migrate(url)
        yield url, redis.url


def test_a_real_worker_folds_a_real_conversation_through_a_real_model_server(
    tmp_path: Path, urls: tuple[str, str]
) -> None:
    database_url, broker_url = urls
    with llama_server(tmp_path / "llama.log", n_ctx=8192) as base_url:
        # Small prompts: a 135M model on two CPU cores reads about 100-300 prompt tokens a second.
        overrides = {
            "llm": "openai",
            "openai_model": MODEL_ALIAS,
            "window_tokens": "900",
            "batch_size": "3",
            "max_batch_exchanges": "3",
            "clip_message_chars": "300",
            "llm_timeout": "120",
            "llm_max_output_tokens": "400",
            "llm_max_retries": "0",
        }
        env = {
            **fleet_env(tmp_path, database_url=database_url, broker_url=broker_url, **overrides),
            "OPENAI_BASE_URL": base_url,
            "OPENAI_API_KEY": "",
        }
        settings = load_settings(
            database_url=database_url,
            data_dir=tmp_path / "data",
            llm="openai",
            openai_base_url=base_url,
            openai_model=MODEL_ALIAS,
            window_tokens=900,
            batch_size=3,
        )
        db = build_database(settings)
        ensure_schema(db, auto_upgrade=True)
        records = [r for r in read_records(str(sample_path()), "canonical", None, 1_000_000)]
        users = [i for i, r in enumerate(records) if r.message.kind.value == "user"]
        conversation = records[: users[EXCHANGES]] if len(users) > EXCHANGES else records
        api = build_summarizer(settings, db)
        now = datetime.now(UTC) - timedelta(minutes=5)  # the sample's days, replayed as today's session
        report = api.record_many(rebased([(r.agent_id, r.message) for r in conversation], now))
        assert report.evicted_exchanges >= 3
        fleet = Fleet(env, tmp_path)
        try:
            fleet.cli("worker", "worker", "-c", "1", "--beat")
            wait_for(lambda: api.unsummarized(SAMPLE_AGENT) == 0, 900, "every evicted exchange folded")
        finally:
            fleet.close()

    facts = build_sql_store(db).provenance(SAMPLE_AGENT)
    assert facts is not None
    evicted = [e for e in ledger_entries(facts) if e.state != "in_window"]
    assert len(evicted) == report.evicted_exchanges
    assert {e.state for e in evicted} == {"summarized"}, [
        (e.id, e.state, e.reason, e.detail) for e in evicted
    ]
    with db.read() as conn:
        states = set(conn.execute(select(summary_update_queue.c.state)).scalars())
        billed = conn.execute(
            select(func.coalesce(func.sum(summary_runs.c.llm_input_tokens), 0))
        ).scalar_one()
        paths = set(conn.execute(select(summary_runs.c.path)).scalars())
    assert "failed" not in states  # never parked
    assert billed > 0  # the server's usage is on record, accepted answers or not
    text, version = api.summary_text(SAMPLE_AGENT)
    assert version is not None
    assert "nothing has left the context window" not in text
    assert text.strip()
    print(f"runs by path: {sorted(p or '-' for p in paths)}; input tokens billed: {billed}")
    db.dispose()
