"""Credentials pasted into a conversation never leave through an edge, on both databases: the planted set of
tests/integration/test_credentials_masked.py is recorded by `summarizer ingest` in user text, tool input and
tool output, evicted and summarized by `summarizer drain` (the offline engine, and the fake Anthropic API with
a model that copies its prompt), then read back through every MCP tool and resource (the official SDK client
over streamable HTTP against `summarizer mcp --transport http`, and the one-agent server in process), the
Claude Code and Gemini CLI SessionStart hooks, every CLI export and the HTTP API's version reads. None may
hold a raw credential, and the masked form must be shown where the messages and the summary are."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp.client.client import Client
from mcp.client.session import ClientSession

from summarizer import composition
from summarizer.composition import build_http_app, build_provenance, build_summarizer
from summarizer.mcp_server import Memory, build_mcp_server
from summarizer.service.follow import project_agent_id
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.testing.fake_messages_api import FakeMessagesAPI
from tests.acceptance.cli import run_cli
from tests.e2e.test_http_curl import server_env
from tests.integration.test_credentials_masked import PLANTED, SECRETS, copying_model
from tests.integration.test_credentials_masked import _exchange as planted_exchange
from tests.support.http_api import OPERATOR_TOKEN, bearer, hermetic_settings
from tests.support.mcp_clients import mcp_session
from tests.support.mcp_server_process import mcp_http_server

pytestmark = pytest.mark.slow

PROJECT = "-home-me-app"
AGENT = project_agent_id(PROJECT)
"""The agent both coding-agent hooks name for a project in /home/me/app."""
CWD = "/home/me/app"
QUERY = "step printed output please use this"
READ_TOOLS = {"summary", "recall", "exchange", "history"}
"""The MCP tools that read; `pin` writes (its answer names the pin)."""
MASKED = "[secret:anthropic-key …XYZW]"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """The settings of every process, and a home of its own (where the hooks look for agent logs)."""
    home = {"HOME": str(tmp_path / "home")}
    if request.param == "sqlite":
        found = server_env(tmp_path, f"sqlite:///{(tmp_path / 'edges.db').as_posix()}")
        assert run_cli("db", "upgrade", env=found).returncode == 0
        return found | home
    request.getfixturevalue("pg")  # the session's PostgreSQL database, emptied
    return server_env(tmp_path, request.getfixturevalue("empty_postgres_url")) | home


@pytest.fixture(params=["offline", "anthropic"])
def env(request: pytest.FixtureRequest, database_env: dict[str, str]) -> Iterator[dict[str, str]]:
    """`database_env` with a summarizing engine: the offline one, or Anthropic's API served by a fake whose
    model copies each exchange of its prompt into the summary."""
    common = database_env | {"SUMMARIZER_WINDOW_TOKENS": "400", "SUMMARIZER_BATCH_SIZE": "1"}
    if request.param == "offline":
        yield common | {"SUMMARIZER_LLM": "offline"}
        return
    with FakeMessagesAPI(messages_default=copying_model) as fake:
        yield common | {
            "SUMMARIZER_LLM": "anthropic",
            "SUMMARIZER_ANTHROPIC_API_KEY": "test-key-for-the-fake",
            "SUMMARIZER_ANTHROPIC_BASE_URL": fake.base_url,
            "SUMMARIZER_LLM_MAX_RETRIES": "0",
        }
        assert fake.requests_to("/v1/messages"), "the provider fake was asked"


def _cli(env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    done = run_cli(*args, env=env, stdin=stdin)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    assert [s for s in SECRETS if s in done.stderr] == [], f"{args}: a credential in what it logged"
    return done.stdout


def _record_and_summarize(env: dict[str, str], tmp_path: Path) -> None:
    """Each planted credential in its own exchange, recorded and summarized in two halves (so the summary
    has two kept versions to tell apart)."""
    lines = [
        {"agent": AGENT, **message}
        for n, (planted, _) in enumerate(PLANTED, start=1)
        for message in planted_exchange(n, planted)
    ]
    half = len(lines) // 2 - len(lines) // 2 % 4  # whole exchanges of four messages
    for part, chosen in enumerate((lines[:half], lines[half:])):
        source = tmp_path / f"planted-{part}.jsonl"
        source.write_text("".join(json.dumps(line) + "\n" for line in chosen), encoding="utf-8")
        _cli(env, "ingest", str(source), "--format", "canonical")
        _cli(env, "drain")


def _tool_text(result: Any) -> str:
    """Everything an MCP tool result holds: its content blocks and its structured content."""
    assert not result.is_error, result.content
    texts = [getattr(block, "text", "") for block in result.content]
    return "\n".join([*texts, json.dumps(result.structured_content, ensure_ascii=False)])


def _resource_text(resource: Any) -> str:
    return "\n".join(getattr(item, "text", "") for item in resource.contents)


async def _read_every_tool(session: ClientSession | Client, agent: dict[str, str]) -> dict[str, str]:
    """Each read tool's answers (every exchange of the history, one by one) and every resource, keyed by
    what was read; the tools and resources offered must be exactly those read (and `pin`)."""
    tools = {tool.name for tool in (await session.list_tools()).tools}
    assert tools - {"pin"} == READ_TOOLS, f"a tool was added: read it here too ({sorted(tools)})"
    found: dict[str, str] = {
        "summary": _tool_text(await session.call_tool("summary", {**agent})),
        "recall": _tool_text(await session.call_tool("recall", {**agent, "query": QUERY, "limit": 50})),
    }
    history = await session.call_tool("history", {**agent, "limit": 100})
    found["history"] = _tool_text(history)
    exchanges = [x["id"] for x in history.structured_content["exchanges"]]
    assert len(exchanges) == len(PLANTED)
    found["exchange"] = "\n".join(
        [_tool_text(await session.call_tool("exchange", {**agent, "exchange_id": n})) for n in exchanges]
    )
    uris = [str(r.uri) for r in (await session.list_resources()).resources]
    templates = [t.uri_template for t in (await session.list_resource_templates()).resource_templates]
    known = {"memory://summary", "memory://{agent_id}/summary", "memory://{+agent_id}/summary"}
    assert set(uris) | set(templates) <= known, (
        f"a resource was added: read it here too ({uris}, {templates})"
    )
    uris += [re.sub(r"\{\+?agent_id\}", AGENT, t) for t in templates]
    assert uris, "a summary resource is offered"
    for uri in uris:
        found[f"resource {uri}"] = _resource_text(await session.read_resource(uri))
    return found


def _mcp_over_http(env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    async def read(url: str) -> dict[str, str]:
        async with mcp_session(url, OPERATOR_TOKEN) as session:
            return await _read_every_tool(session, {"agent_id": AGENT})

    log = tmp_path / "mcp.log"
    with mcp_http_server(env, log) as url:
        found = anyio.run(read, url)
    return {f"MCP over HTTP {what}": text for what, text in found.items()} | {
        "MCP server log": log.read_text()
    }


def _mcp_one_agent(env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, str]:
    """The server `summarizer mcp --agent AGENT` builds, read in process by the SDK's own client."""
    db = connect_database(env["SUMMARIZER_DATABASE_URL"])
    try:
        settings = hermetic_settings(monkeypatch, tmp_path, database_url=env["SUMMARIZER_DATABASE_URL"])
        memory = Memory(
            summarizer=build_summarizer(settings, db), ledger=build_provenance(settings, db).ledger
        )

        async def read() -> dict[str, str]:
            async with Client(build_mcp_server(memory, agent=AGENT)) as client:
                return await _read_every_tool(client, {})

        found = anyio.run(read)
    finally:
        db.dispose()
    return {f"MCP for one agent {what}": text for what, text in found.items()}


def _session_start(env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """Each hook's SessionStart answer to the event its agent sends for a new session in /home/me/app."""
    home = tmp_path / "home"
    claude = home / ".claude" / "projects" / PROJECT
    gemini = home / ".gemini" / "tmp" / "9f1c2e" / "chats"
    claude.mkdir(parents=True)
    gemini.mkdir(parents=True)
    events = {
        "claude-code": {"transcript_path": str(claude / "new-session.jsonl")},
        "gemini-cli": {"transcript_path": str(gemini / "session-2026-11-26T14-00-abcd1234.json")},
    }
    found = {}
    for hook, event in events.items():
        sent = {
            "session_id": "new",
            "cwd": CWD,
            "hook_event_name": "SessionStart",
            "source": "startup",
            **event,
        }
        out = _cli(env, "hook", hook, stdin=json.dumps(sent))
        answer = json.loads(out)["hookSpecificOutput"]
        assert answer["hookEventName"] == "SessionStart"
        assert "Memory of earlier work" in answer["additionalContext"]
        found[f"hook {hook}"] = out
        found[f"hook {hook} additionalContext"] = answer["additionalContext"]
    return found


def _cli_exports(env: dict[str, str]) -> dict[str, str]:
    """Every read command, as text and as JSON (the agent id starts with `-`, so it follows `--`)."""
    found = {
        " ".join(args): _cli(env, *args)
        for args in [
            ("summary", "--", AGENT),
            ("summary", "--json", "--", AGENT),
            ("history", "--", AGENT),
            ("history", "--json", "--", AGENT),
            ("context", "--", AGENT),
            ("context", "--json", "--", AGENT),
            ("provenance", "--", AGENT),
            ("provenance", "--json", "--", AGENT),
            ("recall", "--limit", "50", "--", AGENT, QUERY),
            ("recall", "--limit", "50", "--json", "--", AGENT, QUERY),
            ("versions", "list", "--", AGENT),
            ("agent", "show", "--json", "--", AGENT),
            ("pins", "--json", "--", AGENT),
        ]
    }
    latest = json.loads(found[f"summary --json -- {AGENT}"])["version"]
    assert latest is not None, "the evicted exchanges were summarized"
    for v in range(1, latest + 1):
        found[f"summary --version {v}"] = _cli(env, "summary", "--version", str(v), "--json", "--", AGENT)
        if v > 1:
            found[f"diff 1 {v}"] = _cli(env, "diff", "--", AGENT, "1", str(v))
            found[f"diff 1 {v} --json"] = _cli(env, "diff", "--json", "--", AGENT, "1", str(v))
    return found


def _http_and_library(env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, str]:
    """The HTTP reads the integration test leaves out (kept versions, the fleet list, pins) and the
    library's context in each provider's format."""
    db: Database = connect_database(env["SUMMARIZER_DATABASE_URL"])
    try:
        settings = hermetic_settings(monkeypatch, tmp_path, database_url=env["SUMMARIZER_DATABASE_URL"])
        client = TestClient(build_http_app(settings, db), headers=bearer(OPERATOR_TOKEN))
        base = f"/v1/agents/{AGENT}"
        latest = client.get(f"{base}/summary").json()["version"]
        paths = [f"{base}/summary?version={v}" for v in range(1, latest + 1)]
        paths += ["/v1/agents", f"{base}/pins", f"{base}/instructions", f"{base}/context"]
        found = {}
        for path in paths:
            answer = client.get(path)
            assert answer.status_code == 200, (path, answer.text)
            found[f"HTTP {path}"] = answer.text
        context = composition.build_summarizer(settings, db).get_context(AGENT)
        found["library context to_anthropic"] = json.dumps(context.to_anthropic(), ensure_ascii=False)
        found["library context to_openai_chat"] = json.dumps(context.to_openai_chat(), ensure_ascii=False)
        found["library context to_responses"] = json.dumps(context.to_responses(), ensure_ascii=False)
    finally:
        db.dispose()
    return found


def _leaks(surfaces: dict[str, str]) -> list[str]:
    return [f"{where}: {secret}" for where, text in surfaces.items() for secret in SECRETS if secret in text]


def test_no_planted_credential_leaves_through_mcp_hooks_or_exports(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _record_and_summarize(env, tmp_path)
    surfaces = {
        **_mcp_over_http(env, tmp_path),
        **_mcp_one_agent(env, monkeypatch, tmp_path),
        **_session_start(env, tmp_path),
        **_cli_exports(env),
        **_http_and_library(env, monkeypatch, tmp_path),
    }
    assert _leaks(surfaces) == []
    assert "diff 1 2 --json" in surfaces, "two kept versions were compared"
    # Shown masked, not left out: the messages keep the kind and last four, the summary copied the mask.
    for where in (
        "MCP over HTTP exchange",
        "MCP for one agent exchange",
        "MCP over HTTP recall",
        f"context -- {AGENT}",
        f"recall --limit 50 -- {AGENT} {QUERY}",
    ):
        assert MASKED in surfaces[where], where
    for where in (
        "MCP over HTTP summary",
        f"MCP over HTTP resource memory://{AGENT}/summary",
        "MCP for one agent resource memory://summary",
        "hook claude-code additionalContext",
        "hook gemini-cli additionalContext",
        f"summary -- {AGENT}",
        "diff 1 2",
    ):
        assert "[secret:" in surfaces[where], where
