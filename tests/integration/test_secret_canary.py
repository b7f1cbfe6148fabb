"""A provider that echoes the API key: the key is planted in error answers of every status, and searched
for in the database, the logs, every HTTP answer and the alert sinks afterwards."""

from __future__ import annotations

import io
import json
import logging
import secrets as token_source
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from fastapi.testclient import TestClient
from sqlalchemy import String, cast, select, text

from summarizer import composition
from summarizer.domain import secrets
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.logs import configure_logging
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import metadata
from summarizer.testing.fake_messages_api import FakeMessagesAPI, error_reply
from tests.support.fake_webhook import FakeWebhook, fake_webhook
from tests.support.http_api import bearer

# Shaped like no known credential: only the configured value itself can give it away.
CANARY = "canary" + token_source.token_hex(16)
TOKEN = "operator-canary-token-42"
STATUSES = (400, 401, 402, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 529)
PATHS = ("/v1/alerts?all=true", "/v1/queue", "/v1/stats", "/v1/agents", "/metrics", "/ui/")


@pytest.fixture
def provider() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as fake:
        yield fake


@pytest.fixture
def logs(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """The process's real log pipeline writing to a buffer; put back as it was afterwards."""
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    root = logging.getLogger()
    level = root.level
    structlog.reset_defaults()
    configure_logging(json=True, level="DEBUG")
    # Module-level loggers first used now must not keep this pipeline for the process's later tests.
    structlog.configure(cache_logger_on_first_use=False)
    yield stream
    structlog.reset_defaults()
    root.handlers.clear()
    root.setLevel(level)


@pytest.fixture
def hook() -> Iterator[FakeWebhook]:
    with fake_webhook() as server:
        yield server


def _configure(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    db: Database,
    provider: FakeMessagesAPI,
    hook: FakeWebhook,
) -> None:
    env = {
        "SUMMARIZER_DATABASE_URL": db.url.render_as_string(hide_password=False),
        "SUMMARIZER_DATA_DIR": str(tmp_path / "data"),
        "SUMMARIZER_LLM": "anthropic",
        "ANTHROPIC_API_KEY": CANARY,
        "ANTHROPIC_BASE_URL": provider.base_url,
        "SUMMARIZER_LLM_MAX_RETRIES": "0",
        "SUMMARIZER_MAX_RETRIES": "1",
        "SUMMARIZER_WINDOW_TOKENS": "60",
        "SUMMARIZER_BATCH_SIZE": "1",
        "SUMMARIZER_ALERT_WEBHOOK_URL": hook.url,
        "SUMMARIZER_API_TOKENS": TOKEN,
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def _dump(db: Database) -> str:
    """Every text and JSON value of every table, as one string."""
    parts: list[str] = []
    with db.read() as conn:
        for table in metadata.sorted_tables:
            columns = [cast(c, String) for c in table.c]
            for row in conn.execute(select(*columns)):
                parts.extend(str(v) for v in row if v is not None)
    return "\n".join(parts)


def _evict(agent: str, n: int) -> list[NewMessage]:
    words = " ".join(f"w{i}" for i in range(40))
    batch: list[NewMessage] = []
    for i in range(n):
        batch.append(NewMessage(Kind.USER, f"{agent} question {i}: {words}"))
        batch.append(NewMessage(Kind.ASSISTANT, f"{agent} answer {i}: {words}"))
    return batch


def test_a_key_echoed_by_the_provider_is_masked_everywhere(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    db: Database,
    provider: FakeMessagesAPI,
    hook: FakeWebhook,
    logs: io.StringIO,
) -> None:
    _configure(monkeypatch, tmp_path, db, provider, hook)
    settings = composition.load()
    api = composition.build_summarizer(settings, db)
    service = composition.build_update_service(settings, db)
    for status in STATUSES:
        agent = f"agent-{status}"
        api.record_batch(agent, _evict(agent, 4))
        provider.script_messages(
            error_reply(status, "some_error", f"invalid x-api-key: {CANARY} (x-api-key: {CANARY})")
        )
        service.run(agent)
        with db.write() as conn:  # the next status must reach the provider, not a paused fleet
            conn.execute(text("DELETE FROM provider_breakers"))
    assert len(provider.requests_to("/v1/messages")) >= len(STATUSES)
    alerts = composition.build_alert_service(settings, db)
    alerts.evaluate()

    stored = _dump(db)
    assert "invalid x-api-key" in stored  # the errors were stored...
    assert CANARY not in stored  # ...without the key

    client = TestClient(composition.build_http_app(settings, db), headers=bearer(TOKEN))
    for path in PATHS:
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.text)
        assert CANARY not in answer.text, path
    for status in STATUSES:
        for path in (f"/v1/agents/agent-{status}/context", f"/v1/agents/agent-{status}/provenance"):
            assert CANARY not in client.get(path).text

    delivered = json.dumps([*hook.wait_for(1), *hook.headers])  # at least one alert was delivered
    assert CANARY not in delivered

    written = logs.getvalue()
    assert "update." in written
    assert CANARY not in written
    assert secrets.redact(f"key {CANARY}") == f"key {secrets.MASK}"
