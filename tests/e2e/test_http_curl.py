"""A host that is not Python: records and reads an agent through a real `summarizer serve` with curl only."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.cli import run_cli
from tests.support.fleet import free_port, stop_group, wait_for
from tests.support.http_api import API_TOKENS, OPERATOR_TOKEN, SCOPED_TOKEN
from tests.support.mcp_server_process import full_env
from tests.support.services import ROOT, service_missing

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Reply:
    status: int
    body: str

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class Server:
    base: str
    env: dict[str, str]

    def curl(self, *args: str, token: str | None = OPERATOR_TOKEN) -> Reply:
        """`curl` with the token, as any shell script or non-Python host would call the API."""
        curl = shutil.which("curl")
        if curl is None:
            service_missing("curl", FileNotFoundError("curl"))
        assert curl is not None
        auth = ["-H", f"Authorization: Bearer {token}"] if token else []
        done = subprocess.run(
            [curl, "-sS", "--max-time", "30", "-w", "\n%{http_code}", *auth, *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        body, _, status = done.stdout.rpartition("\n")
        return Reply(int(status), body)


def server_env(tmp_path: Path, database_url: str) -> dict[str, str]:
    return {
        "SUMMARIZER_DATABASE_URL": database_url,
        "SUMMARIZER_DATA_DIR": str(tmp_path / "data"),
        "SUMMARIZER_API_TOKENS": API_TOKENS,
        "SUMMARIZER_LLM": "fake",
        "SUMMARIZER_WINDOW_TOKENS": "120",
        "SUMMARIZER_BATCH_SIZE": "1",
        "SUMMARIZER_LOG_LEVEL": "WARNING",
    }


def backend_env(request: pytest.FixtureRequest, tmp_path: Path, sqlite_file: str) -> dict[str, str]:
    """`server_env` on the backend a fixture is parametrized with ("sqlite": a migrated file of that name
    under tmp_path; "postgresql": the test's PostgreSQL database)."""
    if request.param == "sqlite":
        env = server_env(tmp_path, f"sqlite:///{(tmp_path / sqlite_file).as_posix()}")
        assert run_cli("db", "upgrade", env=env).returncode == 0
        return env
    return server_env(tmp_path, request.getfixturevalue("empty_postgres_url"))


def spawn_serve(env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "summarizer", "serve", "--port", str(port)],
            env=full_env(env),
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


@pytest.fixture(params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    env = backend_env(request, tmp_path, "api.db")
    port = free_port()
    log = tmp_path / "serve.log"
    proc = spawn_serve(env, port, log)
    base = f"http://127.0.0.1:{port}"
    try:
        api = Server(base, env)
        wait_for(lambda: api.curl(f"{base}/healthz", token=None).status == 200, 60, "summarizer serve")
        yield api
    finally:
        stop_group(proc)
    assert "Traceback" not in log.read_text(), log.read_text()


def conversation() -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"kind": "system", "content": "You are a build bot.", "id": "s"}]
    for n in range(4):
        text = " ".join(f"step{n}-{i}" for i in range(25))
        messages += [
            {"kind": "user", "content": f"Run build {n}: {text}", "id": f"u{n}"},
            {"kind": "tool_call", "tool_call_id": f"c{n}", "name": "make", "input": {"n": n}, "id": f"c{n}"},
            {"kind": "tool_result", "tool_call_id": f"c{n}", "content": f"build {n} ok", "id": f"r{n}"},
            {"kind": "assistant", "content": f"Build {n} passed: {text}", "id": f"a{n}"},
        ]
    return {"messages": messages}


def test_a_host_records_and_reads_through_http_with_curl(server: Server, tmp_path: Path) -> None:
    agent = "team-a/curl-host"
    body = tmp_path / "messages.json"
    body.write_text(json.dumps(conversation()))
    url = f"{server.base}/v1/agents/{agent}"

    recorded = server.curl(
        "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", f"@{body}", f"{url}/messages"
    )
    assert recorded.status == 200, recorded.body
    assert recorded.json()["stored"] == 17
    assert recorded.json()["evicted_exchanges"] >= 2
    again = server.curl("-X", "POST", "--data-binary", f"@{body}", f"{url}/messages", token=SCOPED_TOKEN)
    assert (again.status, again.json()["stored"], again.json()["skipped"]) == (200, 0, 17)

    history = server.curl(f"{url}/history", token=SCOPED_TOKEN).json()
    assert [e["state"] for e in history["exchanges"]].count("evicted") >= 2
    context = server.curl(f"{url}/context").json()
    assert context["messages"][0]["content"] == "You are a build bot."
    assert context["summary_version"] is None

    # A worker folds the evictions; the host reads the summary over HTTP.
    drained = run_cli("drain", env=server.env)
    assert drained.returncode == 0, drained.stderr
    summary = server.curl(f"{url}/summary", token=SCOPED_TOKEN).json()
    assert summary["version"] >= 1
    assert summary["tiers"]["session"]
    context = server.curl(f"{url}/context").json()
    assert context["summary_version"] == summary["version"]
    assert "Previously in This Session" in context["summary"]

    bad = server.curl(
        "-X", "POST", "--data-binary", '{"messages":[{"kind":"user","contnet":"x"}]}', f"{url}/messages"
    )
    assert bad.status == 422
    assert bad.json()["detail"].startswith("messages[0]: unknown key 'contnet'")
    assert server.curl(f"{url}/context", token=None).status == 401
    assert server.curl(f"{server.base}/v1/agents/team-b/x/context", token=SCOPED_TOKEN).status == 403
    assert server.curl(f"{server.base}/v1/queue", token=SCOPED_TOKEN).status == 403
    spec = server.curl(f"{server.base}/openapi.json", token=None).json()
    assert "/v1/agents/{agent_id}/messages" in spec["paths"]


def test_serve_refuses_to_start_without_a_token(tmp_path: Path) -> None:
    env = server_env(tmp_path, "") | {"SUMMARIZER_API_TOKENS": ""}
    done = run_cli("serve", "--port", str(free_port()), env=env)
    assert done.returncode == 2
    assert done.stderr.startswith("error: SUMMARIZER_API_TOKENS is empty")
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "data" / "summarizer.db").exists()


def test_serve_on_a_busy_port_says_so(tmp_path: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        done = run_cli("serve", "--port", str(port), env=server_env(tmp_path, ""))
    assert done.returncode == 2
    assert done.stderr.strip() == f"Error: cannot listen on 127.0.0.1:{port}: the port is in use"
