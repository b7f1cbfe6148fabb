"""Secrets never reach a log line: API keys, URL passwords, authorization headers, secret-named fields."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog

from summarizer.domain.secrets import MASK
from summarizer.logs import configure_logging, redact_text

KEY = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    structlog.reset_defaults()
    configure_logging(json=True)
    yield stream
    structlog.reset_defaults()
    logging.getLogger().handlers.clear()


def lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


def test_api_key_in_a_field_and_in_free_text_is_masked(captured: io.StringIO) -> None:
    structlog.get_logger("t").info("llm.call", api_key=KEY, note=f"retrying with key {KEY}")
    (line,) = lines(captured)
    assert KEY not in json.dumps(line)
    assert line["api_key"] == MASK
    assert line["event"] == "llm.call"


def test_password_in_database_and_broker_urls_is_masked(captured: io.StringIO) -> None:
    structlog.get_logger("t").info(
        "boot",
        database_url="postgresql+psycopg://app:s3cr3t@db:5432/x",
        broker="redis://:hunter2@redis:6379/0",
    )
    (line,) = lines(captured)
    assert line["database_url"] == f"postgresql+psycopg://app:{MASK}@db:5432/x"
    assert line["broker"] == f"redis://:{MASK}@redis:6379/0"


def test_authorization_headers_are_masked_in_nested_values(captured: io.StringIO) -> None:
    headers = {"Authorization": "Bearer abc.def.ghi123", "x-api-key": KEY, "content-type": "application/json"}
    structlog.get_logger("t").warning(
        "http.request", headers=headers, raw="Authorization: Basic dXNlcjpwYXNz"
    )
    (line,) = lines(captured)
    dumped = json.dumps(line)
    assert "abc.def.ghi123" not in dumped
    assert KEY not in dumped
    assert "dXNlcjpwYXNz" not in dumped
    assert line["headers"] == {"Authorization": MASK, "x-api-key": MASK, "content-type": "application/json"}


def test_standard_library_records_are_redacted_too(captured: io.StringIO) -> None:
    logging.getLogger("celery").error("cannot connect to redis://:topsecret@broker:6379//")
    (line,) = lines(captured)
    assert "topsecret" not in line["event"]  # type: ignore[operator]
    assert line["level"] == "error"


def test_token_counts_are_not_mistaken_for_secrets(captured: io.StringIO) -> None:
    structlog.get_logger("t").info("summary.updated", llm_input_tokens=1200, summary_tokens=8000, tokens=5)
    (line,) = lines(captured)
    assert (line["llm_input_tokens"], line["summary_tokens"], line["tokens"]) == (1200, 8000, 5)


def test_plain_text_without_secrets_is_unchanged() -> None:
    text = "evicted 3 exchanges for agent bot-1 at https://example.test/path?x=1"
    assert redact_text(text) == text


def test_json_when_not_a_terminal_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()  # not a TTY
    monkeypatch.setattr("sys.stderr", stream)
    structlog.reset_defaults()
    try:
        configure_logging()
        structlog.get_logger("t").info("queue.claimed", agent_id="a1")
        (line,) = lines(stream)
        assert (line["event"], line["agent_id"], line["level"]) == ("queue.claimed", "a1", "info")
        assert "timestamp" in line
    finally:
        structlog.reset_defaults()
        logging.getLogger().handlers.clear()


@pytest.mark.parametrize(
    "secret",
    ["gsk_" + "a1B2c3D4e5F6g7H8i9J0", "xai-" + "Zz9Yy8Xx7Ww6Vv5Uu4", "hf_" + "abcdefghijKLMNOPQRST"],
)
def test_provider_keys_of_any_known_shape_are_masked_in_free_text(captured: io.StringIO, secret: str) -> None:
    structlog.get_logger("t").error("llm.failed", error=f"HTTP 401: invalid key {secret} for this org")
    (line,) = lines(captured)
    assert secret not in json.dumps(line)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("hostile", "masked"),
    [
        ("sk-" * 166_000, MASK),  # key-shaped, and a run tried as a URL scheme from every position
        ("a" * 500_000 + " http://x", None),
        ("x.y-z+" * 80_000 + "://u:p@h", "x.y-z+" * 80_000 + f"://u:{MASK}@h"),
        ("a://b:" * 80_000, None),
    ],
)
def test_masking_a_megabyte_of_hostile_text_takes_one_pass(hostile: str, masked: str | None) -> None:
    """Every stored, logged or served text goes through the masking: a text built to make its patterns
    backtrack must not stall the process (the first of these took 82 s)."""
    from summarizer.domain.secrets import redact

    assert redact(hostile) == (hostile if masked is None else masked)


def test_a_log_line_is_masked_by_every_rule_a_stored_message_is() -> None:
    """A credential only the conversation rules know (a plural secret name, a whole value up to its
    delimiter) never reaches a log line, an alert or an error either."""
    from summarizer.domain.secrets import redact

    line = "deploy failed: DEPLOY_PASSWORDS=Tr0ub4dor&3xQ9z; curl -u admin:hunter2hunter2 https://x.example"
    shown = redact(line)
    assert "Tr0ub4dor" not in shown
    assert "3xQ9z" not in shown
    assert "hunter2hunter2" not in shown
