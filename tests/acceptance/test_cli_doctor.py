"""`summarizer doctor` as an operator runs it: a healthy fleet setup, and each thing broken in turn."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from summarizer.testing.fake_chat_completions import FakeChatCompletionsAPI
from summarizer.testing.fake_messages_api import FakeMessagesAPI
from tests.acceptance.cli import run_cli
from tests.support.services import fresh_postgres_database

KEY = "sk-doctor"
NO_PROVIDER_ENV = {
    "ANTHROPIC_API_KEY": "",
    "ANTHROPIC_BASE_URL": "",
    "OPENAI_API_KEY": "",
    "OPENAI_BASE_URL": "",
}


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def lines_by_check(stdout: str) -> dict[str, str]:
    """'ok    database     detail' -> {'database': 'ok    database     detail'}."""
    found = {}
    for line in stdout.splitlines():
        status, _, rest = line.partition(" ")
        name = rest.strip().split("  ")[0]
        assert status in {"ok", "FAIL"}, line
        found[name] = line
    return found


@pytest.fixture
def openai_api() -> Iterator[FakeChatCompletionsAPI]:
    with FakeChatCompletionsAPI(api_key=KEY) as fake:
        yield fake


@pytest.fixture
def fleet_env(
    openai_api: FakeChatCompletionsAPI, postgres_url: str, redis_server_url: str, tmp_path: Path
) -> dict[str, str]:
    return {
        **NO_PROVIDER_ENV,
        "SUMMARIZER_LLM": "openai",
        "OPENAI_API_KEY": KEY,
        "OPENAI_BASE_URL": openai_api.base_url,
        "SUMMARIZER_DATABASE_URL": postgres_url,
        "SUMMARIZER_BROKER_URL": redis_server_url,
        "SUMMARIZER_DATA_DIR": str(tmp_path / "data"),
    }


def test_a_healthy_fleet_setup_passes_every_check(
    fleet_env: dict[str, str], openai_api: FakeChatCompletionsAPI
) -> None:
    with FakeMessagesAPI() as anthropic_api:
        env = {
            **fleet_env,
            "SUMMARIZER_LLM_FALLBACK": "anthropic",
            "ANTHROPIC_API_KEY": "sk-ant",
            "ANTHROPIC_BASE_URL": anthropic_api.base_url,
        }
        result = run_cli("doctor", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    checks = lines_by_check(result.stdout)
    assert set(checks) == {"llm", "fallback", "database", "migrations", "broker"}
    assert all(line.startswith("ok ") for line in checks.values()), result.stdout
    assert "model gpt-4o-mini available" in checks["llm"]
    assert "model claude-haiku-4-5 available" in checks["fallback"]
    assert "at head" in checks["migrations"]
    assert [r.path for r in openai_api.requests] == ["/v1/models"]  # a free call, no completion paid for


def test_a_wrong_key_fails_the_provider_check(fleet_env: dict[str, str]) -> None:
    result = run_cli("doctor", env={**fleet_env, "OPENAI_API_KEY": "sk-wrong"})
    assert result.returncode == 1
    checks = lines_by_check(result.stdout)
    assert checks["llm"].startswith("FAIL")
    assert "HTTP 401" in checks["llm"]
    assert "Incorrect API key" in checks["llm"]
    assert "sk-wrong" not in result.stdout
    assert checks["database"].startswith("ok")
    assert checks["broker"].startswith("ok")


def test_a_model_the_server_does_not_offer_fails(fleet_env: dict[str, str]) -> None:
    result = run_cli("doctor", env={**fleet_env, "SUMMARIZER_OPENAI_MODEL": "gpt-9"})
    assert result.returncode == 1
    assert "model gpt-9 is not offered" in lines_by_check(result.stdout)["llm"]


def test_unreachable_database_and_broker_each_fail_in_one_line(fleet_env: dict[str, str]) -> None:
    env = {
        **fleet_env,
        "SUMMARIZER_DATABASE_URL": f"postgresql://postgres:hunter2@127.0.0.1:{closed_port()}/app",
        "SUMMARIZER_BROKER_URL": f"redis://:hunter2@127.0.0.1:{closed_port()}/0",
    }
    result = run_cli("doctor", env=env, timeout=60)
    assert result.returncode == 1
    checks = lines_by_check(result.stdout)
    assert checks["llm"].startswith("ok")
    assert checks["database"].startswith("FAIL")
    assert "cannot connect" in checks["database"]
    assert "Connection refused" in checks["database"]
    assert checks["broker"].startswith("FAIL")
    assert "cannot connect" in checks["broker"]
    assert "hunter2" not in result.stdout
    assert len(result.stdout.splitlines()) == 4  # llm, database, migrations, broker
    assert "Traceback" not in result.stderr


def test_a_schema_behind_says_to_upgrade(fleet_env: dict[str, str]) -> None:
    for empty_url in fresh_postgres_database("summarizer_doctor"):
        result = run_cli("doctor", env={**fleet_env, "SUMMARIZER_DATABASE_URL": empty_url})
        assert result.returncode == 1
        checks = lines_by_check(result.stdout)
        assert checks["database"].startswith("ok")
        assert checks["migrations"].startswith("FAIL")
        assert "summarizer db upgrade" in checks["migrations"]


def test_the_embedded_offline_default_passes_and_says_so(tmp_path: Path) -> None:
    env = {**NO_PROVIDER_ENV, "SUMMARIZER_DATA_DIR": str(tmp_path / "data")}
    result = run_cli("doctor", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    checks = lines_by_check(result.stdout)
    assert "offline summarizer" in checks["llm"]
    assert "embedded file broker" in checks["broker"]
    assert not (tmp_path / "data").exists()  # a check writes nothing


def test_a_database_url_that_cannot_be_parsed_is_one_failing_line(tmp_path: Path) -> None:
    env = {**NO_PROVIDER_ENV, "SUMMARIZER_DATA_DIR": str(tmp_path), "SUMMARIZER_DATABASE_URL": "nosuchdb://x"}
    result = run_cli("doctor", env=env)
    assert result.returncode == 1
    assert "unusable SUMMARIZER_DATABASE_URL" in lines_by_check(result.stdout)["database"]
    assert "Traceback" not in result.stderr


def test_a_password_in_a_base_url_is_never_printed(fleet_env: dict[str, str]) -> None:
    password = "base-url-pw-1f2e3d"
    with FakeMessagesAPI() as anthropic_api:
        base = anthropic_api.base_url.replace("http://", f"http://proxyuser:{password}@", 1)
        env = {
            **fleet_env,
            "SUMMARIZER_LLM": "anthropic",
            "ANTHROPIC_API_KEY": "key-9f8e7d6c5b",
            "ANTHROPIC_BASE_URL": base,
        }
        result = run_cli("doctor", env=env)
    assert "proxyuser:***@" in result.stdout
    assert password not in result.stdout + result.stderr
    assert "key-9f8e7d6c5b" not in result.stdout + result.stderr
