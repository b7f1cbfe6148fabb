"""With SUMMARIZER_TOKEN_COUNTER=anthropic: messages are counted before the write transaction, a count that
fails in any way is the bytes estimate (in ingest and in a worker, after the paid call), and the counts of
one process are cached once."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anthropic
import pytest
from sqlalchemy import select

from summarizer.composition import build_update_service
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.domain.tokens import ByteEstimateCounter, message_tokens
from summarizer.llm import anthropic_counter
from summarizer.llm.anthropic_counter import AnthropicTokenCounter, CountCache
from summarizer.settings import Settings
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import messages, summaries
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig
from summarizer.testing.fake_messages_api import (
    COUNT_TOKENS_PATH,
    MESSAGES_PATH,
    FakeMessagesAPI,
    Reply,
    default_count_reply,
)
from tests.support.services import copy_sqlite_template

MODEL = "claude-haiku-4-5"
T0 = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=2)  # recent: not expired for the engine


def turn(i: int) -> list[NewMessage]:
    at = T0 + timedelta(minutes=i)
    return [
        NewMessage(Kind.USER, f"Please fix failing test {i} in the auth module", created_at=at),
        NewMessage(
            Kind.ASSISTANT, f"Fixed test {i}: the token check used the wrong clock skew.", created_at=at
        ),
    ]


def turns(first: int, count: int) -> list[NewMessage]:
    return [m for i in range(first, first + count) for m in turn(i)]


def client_for(api: FakeMessagesAPI, timeout: float = 5.0) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test-key", base_url=api.base_url, timeout=timeout, max_retries=0)


@pytest.fixture
def sqlite_db(tmp_path: Path, sqlite_template: Path) -> Iterator[Database]:
    database = connect_database(copy_sqlite_template(sqlite_template, tmp_path / "counting.db"))
    yield database
    database.dispose()


def slow_count(seconds: float) -> Any:
    def reply(body: Mapping[str, Any]) -> Reply:
        base = default_count_reply(body)
        return Reply(status=base.status, body=base.body, delay=seconds)

    return reply


def test_a_drain_is_not_blocked_while_an_ingest_counts(sqlite_db: Database) -> None:
    url = sqlite_db.url.render_as_string(hide_password=False)
    ConversationStore(sqlite_db, StoreConfig(window_tokens=40, batch_size=1)).record("waiting", turns(0, 6))
    with FakeMessagesAPI(count_default=slow_count(0.25)) as api:
        counter = AnthropicTokenCounter(client_for(api), MODEL)
        store = ConversationStore(sqlite_db, StoreConfig(window_tokens=40, batch_size=1, counter=counter))
        finished = threading.Event()
        failures: list[BaseException] = []

        def ingest() -> None:  # 24 messages, a quarter of a second each: six seconds of counting
            try:
                store.record("counted", turns(0, 12))
            except BaseException as exc:
                failures.append(exc)
            finally:
                finished.set()

        thread = threading.Thread(target=ingest)
        thread.start()
        api.wait_for_requests(1, COUNT_TOKENS_PATH)
        report = build_update_service(
            Settings(database_url=url, llm="offline", batch_size=1), sqlite_db
        ).drain("waiting")
        drained_while_counting = not finished.is_set()
        thread.join(timeout=30)
    assert not failures
    assert report.runs >= 1
    assert drained_while_counting, "the drain waited for the ingest's counting"
    with sqlite_db.read() as conn:
        stored = (
            conn.execute(select(messages.c.tokens).where(messages.c.agent_id == "counted")).scalars().all()
        )
        version = conn.execute(select(summaries.c.version).where(summaries.c.agent_id == "waiting")).scalar()
    assert len(stored) == 24
    assert version is not None


BAD_REPLIES = [
    Reply(body=b"<html><body>Service Unavailable</body></html>"),
    Reply(body={"input_tokens": "lots"}),
    Reply(body={"unexpected": True}),
    Reply(body={"input_tokens": 10**9}),
]


@pytest.mark.parametrize("bad", BAD_REPLIES, ids=["html", "string", "missing", "impossible"])
def test_ingest_stores_the_bytes_estimate_when_a_count_is_unusable(db: Database, bad: Reply) -> None:
    batch = turns(0, 3)
    with FakeMessagesAPI() as api:
        api.script_count_tokens(bad)
        counter = AnthropicTokenCounter(client_for(api), MODEL)
        ConversationStore(db, StoreConfig(counter=counter)).record("estimated", batch)
    with db.read() as conn:
        stored = conn.execute(
            select(messages.c.tokens).where(messages.c.agent_id == "estimated").order_by(messages.c.seq)
        ).scalars()
        assert list(stored) == [message_tokens(m, ByteEstimateCounter()) for m in batch]


def test_a_resent_batch_is_not_counted_again(db: Database) -> None:
    batch = [
        NewMessage(m.kind, m.content, created_at=m.created_at, host_id=f"h{k}")
        for k, m in enumerate(turns(0, 3))
    ]
    with FakeMessagesAPI() as api:
        store = ConversationStore(db, StoreConfig(counter=AnthropicTokenCounter(client_for(api), MODEL)))
        store.record("resent", batch)
        assert len(api.requests_to(COUNT_TOKENS_PATH)) == 6
        fresh = AnthropicTokenCounter(client_for(api), MODEL)  # another process: an empty cache
        report = ConversationStore(db, StoreConfig(counter=fresh)).record("resent", batch)
        assert report.skipped == 6
        assert len(api.requests_to(COUNT_TOKENS_PATH)) == 6


def test_a_worker_commits_its_paid_update_when_the_count_after_it_is_html(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = db.url.render_as_string(hide_password=False)
    ConversationStore(db, StoreConfig(window_tokens=40, batch_size=1)).record("paid", turns(0, 6))
    monkeypatch.setattr(anthropic_counter, "PROCESS_CACHE", CountCache(100))
    with FakeMessagesAPI(count_default=lambda _body: Reply(body=b"<html>502 Bad Gateway</html>")) as api:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        settings = Settings(
            database_url=url, llm="anthropic", token_counter="anthropic", model=MODEL, batch_size=1
        )
        report = build_update_service(settings, db).drain("paid")
        paid = len(api.requests_to(MESSAGES_PATH))
        counted = len(api.requests_to(COUNT_TOKENS_PATH))
    assert paid >= 1
    assert counted >= 1
    assert report.by_outcome == {"ok": paid}  # every paid call ended in a committed summary, none retried
    with db.read() as conn:
        version = conn.execute(select(summaries.c.version).where(summaries.c.agent_id == "paid")).scalar()
    assert version == paid
