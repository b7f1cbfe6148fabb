"""An unreachable database: a command says which one (password masked) in one line and exits 1; the HTTP
API answers 503 with Retry-After; nothing prints a traceback."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from summarizer.composition import build_database, build_http_app
from tests.acceptance.cli import ROOT
from tests.support.http_api import OPERATOR_TOKEN, bearer, hermetic_settings

PASSWORD = "outage-pw-5150"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def down_url() -> str:
    return f"postgresql+psycopg://summarizer:{PASSWORD}@127.0.0.1:{closed_port()}/gone"


COMMANDS = [
    ["queue"],
    ["context", "bot"],
    ["history", "bot"],
    ["stats"],
    ["alerts"],
    ["provenance", "bot"],
    ["drain"],
    ["summary", "bot"],
    ["ingest", "-"],
]


def test_every_command_says_which_database_is_down_in_one_line(down_url: str, tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "SUMMARIZER_DATABASE_URL": down_url, "SUMMARIZER_DATA_DIR": str(tmp_path)}
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "summarizer", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        for args in COMMANDS
    ]
    for args, run in zip(COMMANDS, runs, strict=True):
        out, err = run.communicate('{"kind": "user", "content": "hi", "agent": "bot"}\n', timeout=120)
        assert run.returncode == 1, (args, out, err)
        assert "Traceback" not in err, (args, err)
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1, (args, err)
        assert "is unreachable" in lines[0], (args, err)
        assert "summarizer:***@127.0.0.1" in lines[0], (args, err)
        assert PASSWORD not in out + err


def test_the_http_api_answers_503_with_retry_after(
    down_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings = hermetic_settings(monkeypatch, tmp_path, database_url=down_url)
    app = build_http_app(settings, build_database(settings))
    client = TestClient(app, headers=bearer(OPERATOR_TOKEN), raise_server_exceptions=False)
    for method, path in [
        ("GET", "/v1/agents/bot/context"),
        ("GET", "/v1/agents/bot/summary"),
        ("GET", "/v1/queue"),
        ("GET", "/v1/stats"),
        ("GET", "/v1/agents"),
        ("POST", "/v1/agents/bot/messages"),
        ("GET", "/healthz"),
    ]:
        body = {"messages": [{"kind": "user", "content": "hi"}]} if method == "POST" else None
        answer = client.request(method, path, json=body)
        assert answer.status_code == 503, (path, answer.status_code, answer.text)
        assert answer.headers["Retry-After"] == "5", path
        assert PASSWORD not in answer.text


def test_serve_starts_without_its_database_and_answers_503(down_url: str, tmp_path: Path) -> None:
    port = closed_port()
    env = {
        "PATH": "/usr/bin:/bin",
        "SUMMARIZER_DATABASE_URL": down_url,
        "SUMMARIZER_DATA_DIR": str(tmp_path),
        "SUMMARIZER_API_TOKENS": OPERATOR_TOKEN,
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "summarizer", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        assert server.stdout is not None
        seen: list[str] = []
        for line in server.stdout:  # returns as soon as the server says it listens (or it exits)
            seen.append(line)
            if "summarizer HTTP API on" in line:
                break
        output = "".join(seen)
        assert "is unreachable" in output, output
        assert "answering 503" in output, output
        assert PASSWORD not in output
        answer = httpx.get(f"http://127.0.0.1:{port}/v1/queue", headers=bearer(OPERATOR_TOKEN), timeout=10)
        assert answer.status_code == 503
        assert answer.headers["Retry-After"] == "5"
    finally:
        server.terminate()
        server.wait(timeout=30)
