"""LangChain's `create_agent` with `SummarizerMiddleware`, and `RunnableWithMessageHistory` with
`SummarizerChatMessageHistory`, on SQLite and PostgreSQL: the real agent loop and tool node, LangChain's
`GenericFakeChatModel` standing in for the model. The summary workers run in-process (the update service
drained between turns), with the fake summary LLM."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnableWithMessageHistory
from langchain_core.tools import tool

from summarizer.composition import build_summarizer, build_update_service
from summarizer.domain.kinds import Kind
from summarizer.domain.tokens import ByteEstimateCounter, message_tokens
from summarizer.integrations.langchain import SummarizerChatMessageHistory, SummarizerMiddleware
from summarizer.integrations.raw_sdks import openai_chat_messages
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from tests.support.http_api import hermetic_settings_on
from tests.support.langchain_fakes import ToolTakingFakeChatModel

BUDGET = 400
TURNS = 200
SYSTEM_PROMPT = "Answer stock questions."


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    return hermetic_settings_on(db, monkeypatch, tmp_path, window_tokens=BUDGET, batch_size=1)


@tool
def lookup(n: int) -> str:
    """Look up one inventory item."""
    return f"item {n}: 3 in stock, shelf {n % 7}"


def _script(turns: int) -> list[AIMessage]:
    steps = []
    for n in range(turns):
        steps.append(AIMessage("", tool_calls=[{"name": "lookup", "args": {"n": n}, "id": f"call_{n}"}]))
        steps.append(AIMessage(f"Item {n} has 3 in stock."))
    return steps


def _tokens(messages: Sequence[BaseMessage]) -> int:
    from langchain_core.messages import convert_to_openai_messages

    counter = ByteEstimateCounter()
    return sum(
        message_tokens(m, counter)
        for chat in convert_to_openai_messages(list(messages))
        for m in openai_chat_messages("x", chat)
    )


def _check_request(messages: list[BaseMessage]) -> None:
    system, history = messages[0], messages[1:]
    assert isinstance(system, SystemMessage)
    assert str(system.content).startswith(SYSTEM_PROMPT)
    called: set[str] = set()
    for message in history:
        if isinstance(message, AIMessage):
            called.update(str(c["id"]) for c in message.tool_calls)
        if isinstance(message, ToolMessage):
            assert message.tool_call_id in called, f"tool result {message.tool_call_id} sent without its call"
    users = [i for i, m in enumerate(history) if isinstance(m, HumanMessage)]
    current = history[users[-1] :] if users else history
    assert _tokens(history) <= BUDGET + _tokens(current)


def test_a_long_agent_loop_stays_bounded_and_sees_the_summary(db: Database, settings: Settings) -> None:
    api = build_summarizer(settings, db)
    worker = build_update_service(settings, db)
    model = ToolTakingFakeChatModel(messages=iter(_script(TURNS)))
    agent = create_agent(
        model, tools=[lookup], system_prompt=SYSTEM_PROMPT, middleware=[SummarizerMiddleware("lc/stock", api)]
    )
    for n in range(TURNS):
        result = agent.invoke({"messages": [HumanMessage(f"Turn {n}: how many of item {n}?")]})
        assert result["messages"][-1].content == f"Item {n} has 3 in stock."
        if n % 25 == 24:
            worker.drain()
    assert len(model.requests) == 2 * TURNS
    for index, request in enumerate(model.requests):
        _check_request(request)
        if index >= 2 * 25 + 1:  # folded by the first drain
            assert str(request[0].content) != SYSTEM_PROMPT
            assert "No summary items yet" not in str(request[0].content), index
    assert max(len(r) for r in model.requests) <= 60  # a window, never the whole history (800 messages)
    last = model.requests[-1]
    assert last[-1] == ToolMessage("item 199: 3 in stock, shelf 3", tool_call_id="call_199", id=last[-1].id)
    assert api.history("lc/stock").exchanges[0].state == "evicted"


def test_the_async_agent_records_the_same(db: Database, settings: Settings) -> None:
    api = build_summarizer(settings, db)
    model = ToolTakingFakeChatModel(messages=iter(_script(2)))
    agent = create_agent(model, tools=[lookup], middleware=[SummarizerMiddleware("lc/async", api)])

    async def two_turns() -> None:
        for n in range(2):
            await agent.ainvoke({"messages": [HumanMessage(f"item {n}?")]})

    asyncio.run(two_turns())
    kinds = [m.kind for m in api.get_context("lc/async").messages]
    assert kinds == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT] * 2
    # The second turn's first request carried the first turn from the store (the state held only its own).
    assert [type(m).__name__ for m in model.requests[2]] == [
        "HumanMessage", "AIMessage", "ToolMessage", "AIMessage", "HumanMessage"
    ]  # fmt: skip


@pytest.mark.filterwarnings("ignore:RunnableWithMessageHistory is deprecated")  # still in use: supported
def test_runnable_with_message_history_remembers_through_the_store(db: Database, settings: Settings) -> None:
    api = build_summarizer(settings, db)
    model = GenericFakeChatModel(messages=iter(["Noted.", "On 12 March."]))
    prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"), ("human", "{question}")])
    chain = RunnableWithMessageHistory(
        prompt | model,
        lambda session_id: SummarizerChatMessageHistory(session_id, api),
        input_messages_key="question",
        history_messages_key="history",
    )
    config: Any = {"configurable": {"session_id": "notes"}}
    chain.invoke({"question": "The launch moved to 12 March."}, config=config)
    answer = chain.invoke({"question": "When is the launch?"}, config=config)
    assert answer.content == "On 12 March."
    history = SummarizerChatMessageHistory("notes", api)
    assert [m.content for m in history.messages] == [
        "The launch moved to 12 March.",
        "Noted.",
        "When is the launch?",
        "On 12 March.",
    ]
    history.clear()
    (left,) = history.messages  # the window is empty; the cleared exchanges wait for the summary
    assert isinstance(left, SystemMessage)
    assert "2 exchange(s) left the context window" in str(left.content)
    assert [e.evict_reason for e in api.history("notes").exchanges] == ["clear", "clear"]
