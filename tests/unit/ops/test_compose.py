"""docker-compose.yml and the Dockerfile, checked without Docker: services, commands, order, no secrets."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from summarizer.cli.main import cli

ROOT = Path(__file__).resolve().parents[3]
SECRET_KEY = re.compile(r"(password|secret|api_key|basic_auth|token)", re.I)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(data, dict)
    return data


def service(compose: dict[str, Any], name: str) -> dict[str, Any]:
    value = compose["services"][name]
    assert isinstance(value, dict)
    return value


def test_the_fleet_services_are_all_there(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) == {
        "postgres",
        "redis",
        "migrate",
        "worker",
        "beat",
        "flower",
        "api",
        "mcp",
    }


def test_every_summarizer_service_runs_a_real_cli_command(compose: dict[str, Any]) -> None:
    expected = {
        "migrate": ["db", "upgrade"],
        "worker": ["worker"],
        "beat": ["beat"],
        "flower": ["flower"],
        "api": ["serve"],
        "mcp": ["mcp"],
    }
    for name, prefix in expected.items():
        command = service(compose, name)["command"]
        assert command[: len(prefix)] == prefix, name
        group: click.Command | None = cli
        for word in prefix:
            assert isinstance(group, click.Group)
            group = group.get_command(click.Context(group), word)
            assert group is not None, f"`summarizer {' '.join(prefix)}` does not exist"


def test_startup_order_waits_for_health_and_migrations(compose: dict[str, Any]) -> None:
    assert service(compose, "migrate")["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in ("worker", "beat", "api"):
        depends = service(compose, name)["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully"
        assert depends["redis"]["condition"] == "service_healthy"
    for name in ("postgres", "redis", "flower", "worker", "api"):
        assert "healthcheck" in service(compose, name), name
    assert service(compose, "migrate")["restart"] == "no"


def test_workers_scale_and_beat_stays_single(compose: dict[str, Any]) -> None:
    worker = service(compose, "worker")
    assert "container_name" not in worker
    assert "ports" not in worker  # --scale worker=N would collide on a fixed host port
    assert service(compose, "beat")["deploy"]["replicas"] == 1


def _walk(value: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in _walk(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [pair for i, v in enumerate(value) for pair in _walk(v, f"{path}[{i}]")]
    return [(path, value)]


def test_no_secret_is_hard_coded(compose: dict[str, Any]) -> None:
    for path, value in _walk(compose):
        if isinstance(value, str) and "://" in value and "@" in value:
            credentials = value.split("://", 1)[1].split("@", 1)[0]
            if ":" in credentials:
                assert "${" in credentials.split(":", 1)[1], f"{path} hard-codes a password"
        if SECRET_KEY.search(path.rsplit(".", 1)[-1]) and isinstance(value, str):
            assert value == "" or "${" in value, f"{path} hard-codes a secret"


def test_flower_credentials_come_from_the_environment(compose: dict[str, Any]) -> None:
    env = service(compose, "flower")["environment"]
    assert env["SUMMARIZER_FLOWER_BASIC_AUTH"].startswith("${SUMMARIZER_FLOWER_BASIC_AUTH:?")


def test_dockerfile_installs_the_locked_environment_and_runs_the_cli() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert "uv sync --frozen --no-dev" in text
    assert 'ENTRYPOINT ["summarizer"]' in text
    for needed in ("alembic.ini", "migrations", "summarizer", "workers"):
        assert f"COPY {needed}" in text
    assert "USER summarizer" in text


def test_api_tokens_come_from_the_environment_and_the_port_stays_local(compose: dict[str, Any]) -> None:
    api = service(compose, "api")
    assert api["environment"]["SUMMARIZER_API_TOKENS"].startswith("${SUMMARIZER_API_TOKENS:?")
    assert api["environment"]["SUMMARIZER_DATABASE_URL"].startswith("postgresql+psycopg://")
    assert all(port.startswith("127.0.0.1:") for port in api["ports"])
    assert "/healthz" in " ".join(api["healthcheck"]["test"])
    command = api["command"]
    assert command[command.index("--port") + 1] == api["ports"][0].rsplit(":", 1)[1]
