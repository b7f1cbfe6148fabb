"""The MCP `history` tool pages at the store: its pages are the whole history document cut as before,
and a page of a long agent reads that page's exchanges and ledger rows only, on both databases."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from sqlalchemy import event

from summarizer import composition
from summarizer.composition import build_provenance, build_summarizer
from summarizer.mcp_server import Memory, build_mcp_server
from summarizer.mcp_server.tools import history_page
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from summarizer.views import history_json
from tests.support.http_api import hermetic_settings
from tests.support.workload import module_changes

AGENT = "team-a/coder"


def _memory(db: Database, settings: Settings) -> Memory:
    return Memory(summarizer=build_summarizer(settings, db), ledger=build_provenance(settings, db).ledger)


def _cut(doc: dict[str, Any], limit: int, before: int | None) -> dict[str, Any]:
    """A page cut from the whole history document, as the tool cut it before it paged at the store."""
    exchanges = doc["exchanges"]
    earlier = [e for e in exchanges if before is None or e["id"] < before]
    shown = earlier[-limit:]
    more = shown[0]["id"] if shown and len(earlier) > len(shown) else None
    return doc | {"exchanges": shown, "total_exchanges": len(exchanges), "more_before": more}


async def _pages(server: Any, calls: list[dict[str, Any]]) -> list[Any]:
    async with Client(server) as client:
        return [(await client.call_tool("history", arguments)).structured_content for arguments in calls]


def test_each_page_is_the_whole_document_cut_as_before(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings = hermetic_settings(monkeypatch, tmp_path, window_tokens=200, batch_size=2, batch_max_wait=0)
    memory = _memory(db, settings)
    memory.summarizer.record_batch(AGENT, module_changes(1, 12))
    composition.build_update_service(settings, db).run(AGENT)  # some summarized, some waiting
    whole = history_json(memory.summarizer.history(AGENT), memory.ledger(AGENT, None))
    states = {e["provenance"]["state"] for e in whole["exchanges"]}
    assert {"summarized", "in_window"} <= states
    cases = [(4, None), (4, 9), (4, 3), (4, 1), (500, None), (1, 12), (3, 100)]
    for limit, before in cases:
        assert history_page(memory, AGENT, limit, before) == _cut(whole, limit, before), (limit, before)
    server = build_mcp_server(memory, agent=AGENT)
    first, older = anyio.run(_pages, server, [{"limit": 5}, {"limit": 5, "before": 8}])
    assert first == _cut(whole, 5, None)
    assert first["more_before"] == 8
    assert older == _cut(whole, 5, 8)


EXCHANGE_READ = re.compile(r"\bFROM (exchanges|exchange_drops)\b(?P<rest>.*)", re.IGNORECASE | re.DOTALL)


def test_a_page_of_a_long_agent_reads_that_page_only(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """2,000 exchanges: a page of 50 reads 50 exchanges (one row more, to know older ones exist) and the
    ledger facts of those 50; no statement reads the agent's exchanges or drop rows unbounded."""
    settings = hermetic_settings(monkeypatch, tmp_path, window_tokens=200)
    memory = _memory(db, settings)
    memory.summarizer.record_batch(AGENT, module_changes(1, 2_000))
    ledger_ranges: list[tuple[int, int] | None] = []
    ledger = memory.ledger

    def spied(agent: str, between: tuple[int, int] | None) -> Any:
        ledger_ranges.append(between)
        return ledger(agent, between)

    paged = Memory(memory.summarizer, spied)
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(db.engine, "before_cursor_execute", seen)
    try:
        began = time.perf_counter()
        page = history_page(paged, AGENT, 50, 1_001)
        page_ms = (time.perf_counter() - began) * 1000
    finally:
        event.remove(db.engine, "before_cursor_execute", seen)
    assert [e["id"] for e in page["exchanges"]] == list(range(951, 1_001))
    assert (page["total_exchanges"], page["more_before"]) == (2_000, 951)
    assert ledger_ranges == [(951, 1_000)]
    assert all(e["provenance"] is not None for e in page["exchanges"])
    for statement in statements:
        found = EXCHANGE_READ.search(statement)
        if found is None or statement.lstrip().lower().startswith("select count"):
            continue
        rest = found["rest"].upper()
        assert "LIMIT" in rest or "BETWEEN" in rest, statement
    began = time.perf_counter()
    whole = history_json(memory.summarizer.history(AGENT), memory.ledger(AGENT, None))
    whole_ms = (time.perf_counter() - began) * 1000
    assert _cut(whole, 50, 1_001) == page
    print(
        f"\n{db.engine.dialect.name}: a page of 50 of 2,000 exchanges {page_ms:.1f} ms, the whole {whole_ms:.1f} ms"
    )
