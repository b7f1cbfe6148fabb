"""`summarizer mcp` as an MCP client meets it: a real server process, driven by the official `mcp` SDK's
client over stdio and over streamable HTTP, on SQLite and PostgreSQL. The agent's memory is recorded and
summarized by real CLI commands first (`ingest`, `drain`)."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from tests.acceptance.cli import run_cli
from tests.e2e.test_http_curl import backend_env
from tests.support.http_api import API_TOKENS, OPERATOR_TOKEN, SCOPED_TOKEN
from tests.support.mcp_clients import mcp_session
from tests.support.mcp_server_process import full_env, mcp_http_server
from tests.support.services import ROOT

pytestmark = pytest.mark.slow

AGENT = "team-a/mcp-agent"
OTHER = "team-b/other"
EXACT_TOKEN = "exact-token-0123456789"
NARROW_TOKEN = "narrow-token-0123456789"
MCP_TOKENS = f"{API_TOKENS},{EXACT_TOKEN}@{AGENT},{NARROW_TOKEN}@team-a"
"""Entry 3 is scoped to exactly AGENT; entry 4 to `team-a`, which is an exact id too (not `team-a/...`)."""
READER_TOKEN = "reader-token-0123456789"
"""Read-only (SUMMARIZER_API_READ_TOKENS), scoped to the agents under `team-a/`."""


def _conversation(agent: str) -> str:
    lines: list[dict[str, Any]] = [{"agent": agent, "kind": "system", "content": "You are a coding agent."}]
    for n in range(6):
        filler = " ".join(f"detail{n}-{i}" for i in range(20))
        lines.append({"agent": agent, "kind": "user", "content": f"Task {n}: {filler}", "id": f"u{n}"})
        lines.append({"agent": agent, "kind": "assistant", "content": f"Done {n}: {filler}", "id": f"a{n}"})
    lines[3] = {
        "agent": agent,
        "kind": "user",
        "content": "Which grace window did we choose for refresh token rotation?",
        "id": "u1",
    }
    lines[4] = {"agent": agent, "kind": "assistant", "content": "A 30 second grace period.", "id": "a1"}
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.fixture(params=["sqlite", "postgresql"])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    found = backend_env(request, tmp_path, "mcp.db")
    for agent in (AGENT, OTHER):
        source = tmp_path / f"{agent.replace('/', '_')}.jsonl"
        source.write_text(_conversation(agent))
        done = run_cli("ingest", str(source), "--format", "canonical", env=found)
        assert done.returncode == 0, done.stderr
    drained = run_cli("drain", env=found)
    assert drained.returncode == 0, drained.stderr
    return found


@contextlib.asynccontextmanager
async def _stdio(env: dict[str, str], *args: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "summarizer", "mcp", *args], env=full_env(env), cwd=str(ROOT)
    )
    async with stdio_client(params) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        yield session


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def test_stdio_with_one_agent_serves_its_summary_recall_exchange_and_history(env: dict[str, str]) -> None:
    async def session() -> None:
        async with _stdio(env, "--agent", AGENT) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert {"summary", "recall", "exchange", "history"} <= set(tools)
            assert "agent_id" not in json.dumps(tools["recall"].input_schema["properties"])

            summary = _data(await client.call_tool("summary", {}))
            assert summary["version"] is not None
            assert "recall" in summary["markdown"]

            found = _data(await client.call_tool("recall", {"query": "what grace period for token rotation"}))
            best = found["results"][0]
            assert best["exchange_id"] == 2
            assert best["provenance"]["state"] in {"summarized", "dropped", "waiting"}

            messages = _data(await client.call_tool("exchange", {"exchange_id": best["exchange_id"]}))
            assert [m["kind"] for m in messages["messages"]] == ["user", "assistant"]
            assert "30 second grace period" in messages["messages"][1]["content"]

            history = _data(await client.call_tool("history", {}))
            assert len(history["exchanges"]) == 6

            missing = await client.call_tool("exchange", {"exchange_id": 999})
            assert missing.is_error
            resource = await client.read_resource("memory://summary")
            assert resource.contents[0].text == summary["markdown"]  # type: ignore[union-attr]

    anyio.run(session)


def test_stdio_without_an_agent_takes_the_agent_id_per_call(env: dict[str, str]) -> None:
    async def session() -> None:
        async with _stdio(env) as client:
            found = _data(await client.call_tool("recall", {"agent_id": OTHER, "query": "grace window"}))
            assert found["agent_id"] == OTHER
            unknown = await client.call_tool("recall", {"agent_id": "team-c/none", "query": "grace"})
            assert unknown.is_error
            assert "unknown agent" in unknown.content[0].text  # type: ignore[union-attr]

    anyio.run(session)


@pytest.fixture
def http_server(env: dict[str, str], tmp_path: Path) -> Iterator[str]:
    tokens = {"SUMMARIZER_API_TOKENS": MCP_TOKENS, "SUMMARIZER_API_READ_TOKENS": f"{READER_TOKEN}@team-a/"}
    with mcp_http_server(env | tokens, tmp_path / "mcp.log") as url:
        yield url


def test_streamable_http_needs_a_token_and_keeps_its_scope(http_server: str) -> None:
    async def session() -> None:
        async with mcp_session(http_server, OPERATOR_TOKEN) as operator:
            found = _data(await operator.call_tool("recall", {"agent_id": AGENT, "query": "grace period"}))
            assert found["results"][0]["exchange_id"] == 2
        async with mcp_session(http_server, SCOPED_TOKEN) as scoped:
            own = _data(await scoped.call_tool("summary", {"agent_id": AGENT}))
            assert own["agent_id"] == AGENT
            refused = await scoped.call_tool("recall", {"agent_id": OTHER, "query": "grace period"})
            assert refused.is_error
            text = refused.content[0].text  # type: ignore[union-attr]
            assert "not visible" in text
            assert "30 second" not in text

    anyio.run(session)
    unauthenticated = httpx2.post(http_server, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert unauthenticated.status_code == 401


def _text(result: Any) -> str:
    return str(result.content[0].text)


def test_a_read_only_token_reads_but_may_not_pin(http_server: str) -> None:
    async def session() -> None:
        async with mcp_session(http_server, READER_TOKEN) as reader:
            before = _data(await reader.call_tool("summary", {"agent_id": AGENT}))
            refused = await reader.call_tool("pin", {"agent_id": AGENT, "text": "sneaked in"})
            assert refused.is_error
            assert _text(refused).endswith(": this token may only read"), _text(refused)
            assert _data(await reader.call_tool("summary", {"agent_id": AGENT})) == before
        async with mcp_session(http_server, SCOPED_TOKEN) as writer:
            pinned = _data(await writer.call_tool("pin", {"agent_id": AGENT, "text": "kept", "name": "k"}))
            assert pinned["pinned"] == "k"
            assert "### k\nkept" in _data(await writer.call_tool("summary", {"agent_id": AGENT}))["markdown"]

    anyio.run(session)


def test_resources_take_ids_with_slashes_and_errors_say_why_once(http_server: str, tmp_path: Path) -> None:
    async def session() -> None:
        async with mcp_session(http_server, SCOPED_TOKEN) as scoped:
            summary = _data(await scoped.call_tool("summary", {"agent_id": AGENT}))["markdown"]
            for uri in (f"memory://{AGENT}/summary", "memory://team-a%2Fmcp-agent/summary"):
                resource = await scoped.read_resource(uri)
                assert resource.contents[0].text == summary  # type: ignore[union-attr]
            with pytest.raises(MCPError) as unknown:
                await scoped.read_resource("memory://team-a/none/summary")
            assert str(unknown.value).count("unknown agent 'team-a/none'") == 1, str(unknown.value)
            with pytest.raises(MCPError) as hidden:
                await scoped.read_resource(f"memory://{OTHER}/summary")
            assert f"agent {OTHER!r} is not visible to this token" in str(hidden.value)
            missing = await scoped.call_tool("history", {"agent_id": "team-a/none"})
            assert missing.is_error
            assert _text(missing).count("unknown agent") == 1, _text(missing)
            assert "unknown agent 'team-a/none'" in _text(missing)

    anyio.run(session)
    log = (tmp_path / "mcp.log").read_text()
    assert "Traceback" not in log


def test_a_scope_covers_whole_segments_over_mcp(http_server: str, tmp_path: Path) -> None:
    async def session() -> None:
        async with mcp_session(http_server, EXACT_TOKEN) as exact:
            assert _data(await exact.call_tool("summary", {"agent_id": AGENT}))["agent_id"] == AGENT
            refused = await exact.call_tool("summary", {"agent_id": f"{AGENT}/sub"})
            assert "not visible" in _text(refused)
        async with mcp_session(http_server, NARROW_TOKEN) as narrow:
            # `team-a` is the agent of that id, not every id that starts with it.
            for agent in (AGENT, "team-ab"):
                refused = await narrow.call_tool("history", {"agent_id": agent})
                assert refused.is_error
                assert f"agent {agent!r} is not visible to this token" in _text(refused)
            with pytest.raises(MCPError, match="not visible"):
                await narrow.read_resource(f"memory://{AGENT}/summary")

    anyio.run(session)
    log = (tmp_path / "mcp.log").read_text()
    warnings = [line for line in log.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2, log
    assert f"entry 3 is scoped to {AGENT!r}" in warnings[0]
    assert "entry 4 is scoped to 'team-a'" in warnings[1]
    assert all("only the agent of exactly that id" in w for w in warnings)
    assert NARROW_TOKEN not in log
