"""The OpenAI Agents SDK's Runner with `SummarizerSession`, on SQLite and PostgreSQL: the SDK's real Runner,
a function tool, and the SDK's own scripted model standing in for the model (`agents.testing`). The
summary workers run in-process (the update service drained between turns), with the fake summary LLM."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, cast

import pytest
from agents import Agent, RunConfig, Runner, function_tool
from agents.items import TResponseInputItem
from agents.testing import ScriptedModel, assistant_message, function_call
from openai.types.responses import ResponseReasoningItem

from summarizer.composition import build_summarizer, build_update_service
from summarizer.domain.credentials import mask_credentials
from summarizer.domain.errors import InvalidMessage
from summarizer.domain.kinds import Kind
from summarizer.domain.tokens import ByteEstimateCounter, message_tokens
from summarizer.integrations.openai_agents import SummarizerSession, item_messages
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from tests.support.http_api import hermetic_settings_on
from tests.support.sdk_types import check_responses_items

BUDGET = 400
TURNS = 200


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    return hermetic_settings_on(db, monkeypatch, tmp_path, window_tokens=BUDGET, batch_size=1)


@function_tool
def lookup(n: int) -> str:
    """Look up one inventory item."""
    return f"item {n}: 3 in stock, shelf {n % 7}"


def _turn(n: int) -> list[Any]:
    """One user turn's model steps: think, call the tool, then answer (every answer has the same item id,
    as scripted and bridged models give them: ids are not unique)."""
    reasoning = ResponseReasoningItem(id=f"rs_{n}", type="reasoning", summary=[])
    return [
        [reasoning, function_call("lookup", {"n": n}, call_id=f"call_{n}", item_id=f"fc_{n}")],
        [assistant_message(f"Item {n} has 3 in stock.")],
    ]


def _tokens(items: list[dict[str, Any]]) -> int:
    """What the items weigh in the window, counted as the store counts them."""
    counter = ByteEstimateCounter()
    return sum(
        message_tokens(m, counter)
        for item in items
        for m in item_messages(dict(item), "agents-sdk:item:x")
        if m.kind is not Kind.MARK
    )


def _check_request(items: list[dict[str, Any]], summary_expected: bool) -> None:
    check_responses_items(items)
    history = items
    if summary_expected:
        first = items[0]
        assert first.get("role") == "developer", first
        assert str(first.get("content", "")).strip()
        history = items[1:]
    called: set[str] = set()
    for item in history:
        if item.get("type") == "function_call":
            called.add(str(item["call_id"]))
        if item.get("type") == "function_call_output":
            assert item["call_id"] in called, f"output {item['call_id']} sent without its call"
    users = [i for i, item in enumerate(history) if item.get("role") == "user"]
    current = history[users[-1] :] if users else history
    # Completed exchanges fit the budget; the exchange in progress rides on top.
    assert _tokens(history) <= BUDGET + _tokens(current)


def test_a_long_runner_loop_stays_bounded_and_sees_the_summary(db: Database, settings: Settings) -> None:
    api = build_summarizer(settings, db)
    worker = build_update_service(settings, db)
    model = ScriptedModel([step for n in range(TURNS) for step in _turn(n)])
    agent = Agent(name="stock", instructions="Answer stock questions.", model=model, tools=[lookup])
    session = SummarizerSession("shop/stock-1", api)
    config = RunConfig(tracing_disabled=True)

    async def loop() -> None:
        for n in range(TURNS):
            result = await Runner.run(
                agent, f"Turn {n}: how many of item {n}?", session=session, run_config=config
            )
            assert result.final_output == f"Item {n} has 3 in stock."
            if n % 25 == 24:
                await asyncio.to_thread(worker.drain)

    asyncio.run(loop())
    model.assert_complete()
    calls = model.calls
    assert len(calls) == 2 * TURNS
    summarized = False
    for index, call in enumerate(calls):
        items = cast("list[dict[str, Any]]", call.input if isinstance(call.input, list) else [])
        summarized = summarized or bool(items and items[0].get("role") == "developer")
        _check_request(items, summary_expected=items[0].get("role") == "developer")
        if index >= 2 * 25 + 1:  # the first drain has folded what left the window by then
            assert items[0].get("role") == "developer", index
            assert "No summary items yet" not in str(items[0].get("content")), index
    assert summarized
    # Each request holds the summary and a window (about 9 exchanges of 5 items), never the whole history.
    assert max(len(c.input) for c in calls) <= 60
    last = asyncio.run(session.get_items())
    assert last[-1]["content"][0]["text"] == f"Item {TURNS - 1} has 3 in stock."  # type: ignore[index,typeddict-item]
    assert api.history("shop/stock-1").exchanges[0].state == "evicted"
    assert api.unsummarized("shop/stock-1") >= 0


def test_items_come_back_exactly_as_added_and_pop_and_clear_keep_history(
    db: Database, settings: Settings
) -> None:
    api = build_summarizer(settings, db)
    session = SummarizerSession("support-42", api)
    added: list[TResponseInputItem] = [
        {"role": "user", "content": [{"type": "input_text", "text": "Where is my parcel?"}]},
        {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "gAAA=="},
        {"id": "fc_1", "type": "function_call", "call_id": "c1", "name": "track", "arguments": '{ "id": 7 }'},
        {"type": "function_call_output", "call_id": "c1", "output": "in transit"},
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "x"}},
        {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "It is in transit.", "annotations": []}]},
    ]  # fmt: skip

    async def scenario() -> None:
        assert await session.get_items() == []
        assert await session.pop_item() is None
        await session.add_items(added)
        assert await session.get_items() == added
        assert await session.get_items(limit=2) == added[-2:]
        check_responses_items(await session.get_items())
        assert await session.pop_item() == added[-1]
        assert await session.get_items() == added[:-1]
        await session.clear_session()
        # The window is empty; what was cleared is accounted for, on its way into the summary.
        (left,) = await session.get_items()
        assert left.get("role") == "developer"
        assert "1 exchange(s) left the context window" in str(left.get("content"))
        assert await session.get_items(limit=5) == []

    asyncio.run(scenario())
    history = api.history("support-42")
    assert [e.evict_reason for e in history.exchanges] == ["clear"]
    kinds = [m.kind for m in api.exchange_messages("support-42", 1)]
    assert Kind.ASSISTANT in kinds  # popped, yet kept in the history and handed to the summary workers
    assert kinds.count(Kind.TOOL_CALL) == 1
    assert kinds.count(Kind.TOOL_RESULT) == 1
    assert api.unsummarized("support-42") == 1


def test_an_item_this_package_cannot_read_is_still_kept(db: Database, settings: Settings) -> None:
    session = SummarizerSession("odd-items", build_summarizer(settings, db))
    future = {"type": "hologram_call", "id": "hc_1", "payload": {"x": [1, 2]}}
    items: list[TResponseInputItem] = [{"role": "user", "content": "hi"}, future]  # type: ignore[list-item]
    asyncio.run(session.add_items(items))
    assert asyncio.run(session.get_items()) == items


def test_a_bad_batch_is_refused_whole(db: Database, settings: Settings) -> None:
    api = build_summarizer(settings, db)
    session = SummarizerSession("strict", api)
    asyncio.run(session.add_items([{"role": "user", "content": "first"}]))
    batch: list[Any] = [{"role": "user", "content": "second"}, "not an item"]
    with pytest.raises(
        InvalidMessage, match=r"items\[1\]: expected an input item \(an SDK object or its JSON\), got str"
    ):
        asyncio.run(session.add_items(batch))
    orphan: list[Any] = [{"type": "function_call_output", "call_id": "nope", "output": "x"}]
    with pytest.raises(
        InvalidMessage, match=r"items\[0\]: tool_result with tool_call_id 'nope' matches no tool_call"
    ):
        asyncio.run(session.add_items(orphan))
    assert asyncio.run(session.get_items()) == [{"role": "user", "content": "first"}]


def test_the_session_satisfies_the_sdk_protocol(settings: Settings, db: Database) -> None:
    from agents.memory import Session

    session: Session = SummarizerSession("typed", build_summarizer(settings, db))
    assert isinstance(session, Session)
    assert session.session_id == "typed"
    assert json.loads(json.dumps(asyncio.run(session.get_items()))) == []


def test_without_a_summarizer_the_session_opens_the_configured_database(
    db: Database, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SUMMARIZER_DATABASE_URL", db.url.render_as_string(hide_password=False))
    monkeypatch.setenv("SUMMARIZER_DATA_DIR", str(tmp_path / "data"))
    item: TResponseInputItem = {"role": "user", "content": "hello"}
    asyncio.run(SummarizerSession("lazy", build_summarizer(settings, db)).add_items([item]))
    assert asyncio.run(SummarizerSession("lazy").get_items()) == [item]


def test_credentials_are_masked_in_the_items_too_and_the_items_stay_whole(
    db: Database, settings: Settings
) -> None:
    session = SummarizerSession("keys", build_summarizer(settings, db))
    key = "sk-proj-" + "a1B2c3D4e5" * 4
    items: list[Any] = [
        {"role": "user", "content": f'use {key} and password="hunter2hunter2" please'},
        {"type": "function_call", "call_id": "c1", "name": "login", "arguments": '{"pw": "password=\\"s3cr3t!!\\""}'},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
    ]  # fmt: skip
    asyncio.run(session.add_items(items))
    back = asyncio.run(session.get_items())
    # Each string masked as recording masks a message's text, the rest of each item as it was added.
    masked = [{k: mask_credentials(v) if isinstance(v, str) else v for k, v in i.items()} for i in items]
    assert back == masked
    assert key not in json.dumps(back)
    assert "hunter2hunter2" not in json.dumps(back)
    assert str(back[0].get("content")).startswith("use [secret:openai-key …")
