"""The MCP `pin` tool, in process (the SDK's in-memory client) on both databases: a pin an agent makes is
in the summary every view renders; a pin over the share is refused with the room left."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client

from summarizer.composition import build_provenance, build_summarizer
from summarizer.mcp_server import Memory, build_mcp_server
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from tests.support.http_api import hermetic_settings

AGENT = "team-a/coder"
TEXT = "The staging database is read-only;\n  ask before any write.  "


def _memory(db: Database, settings: Settings) -> Memory:
    return Memory(summarizer=build_summarizer(settings, db), ledger=build_provenance(settings, db).ledger)


async def _calls(server: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async with Client(server) as client:
        return [await client.call_tool(name, arguments) for name, arguments in calls]


def test_an_agent_pins_through_mcp_and_every_view_shows_it(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings = hermetic_settings(monkeypatch, tmp_path)
    memory = _memory(db, settings)
    memory.summarizer.create_agent(AGENT)
    server = build_mcp_server(memory, agent=AGENT)
    pinned, refused, summary = anyio.run(
        _calls,
        server,
        [("pin", {"text": TEXT, "name": "staging"}), ("pin", {"text": "q" * 20_000}), ("summary", {})],
    )
    assert not pinned.is_error
    assert pinned.structured_content["pinned"] == "staging"
    assert refused.is_error
    assert "token(s) are left for pins" in refused.content[0].text
    assert f"### staging\n{TEXT}" in summary.structured_content["markdown"]
    (made,) = memory.summarizer.pins(AGENT)
    assert (made.text, made.pinned_by) == (TEXT, "mcp")
