"""LangChain and LangGraph memory kept by summarizer: agent middleware, and a chat message history.

    from summarizer.integrations.langchain import SummarizerMiddleware
    agent = create_agent(model, tools, middleware=[SummarizerMiddleware("support-42")])

`SummarizerMiddleware` plays the part of LangChain's `SummarizationMiddleware` without its wait: around
each model call it records the messages the agent has not recorded yet, then hands the model the agent's
system prompt followed by the tiered summary, and the window, instead of the whole history. Folding
happens in the summary workers, in the background, never in the request path. The model's answer is
recorded as soon as it arrives. `SummarizerChatMessageHistory` is the same memory as a
`BaseChatMessageHistory`, for apps on `RunnableWithMessageHistory`.

Messages go through LangChain's own OpenAI conversion and the `openai` ingest reader (and back), so tool
calls keep their ids and a tool message is never sent without its call. The store is blocking: the async
hooks run it in a worker thread.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import (
    AnyMessage,
    BaseMessage,
    SystemMessage,
    convert_to_messages,
    convert_to_openai_messages,
)

from summarizer.api import Summarizer
from summarizer.composition import build_summarizer
from summarizer.context_formats import to_openai_chat
from summarizer.domain.agent_ids import check_agent_id
from summarizer.domain.errors import UnknownAgent
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.engine.render import NO_SUMMARY_YET
from summarizer.ingest.raw_sdks import openai_chat_messages

HOST_ID_PREFIX = "langchain:"


class _Memory:
    """One agent's memory as LangChain messages: what both front ends share."""

    def __init__(self, agent_id: str, summarizer: Summarizer | None) -> None:
        self.agent_id = check_agent_id(agent_id)
        self._summarizer = summarizer
        self._recorded: set[str] = set()

    @property
    def summarizer(self) -> Summarizer:
        if self._summarizer is None:
            self._summarizer = build_summarizer()
        return self._summarizer

    def record(self, messages: Sequence[BaseMessage]) -> None:
        """Record the messages not recorded yet (by LangChain message id; a message without one is new),
        all or none. A message recorded in an earlier process is skipped by the store (its host id)."""
        fresh = [m for m in messages if not m.id or m.id not in self._recorded]
        if not fresh:
            return
        batch: list[NewMessage] = []
        for message in fresh:
            converted = convert_to_openai_messages([message])
            for index, chat in enumerate(converted):
                if message.id:
                    part = f"/{index}" if len(converted) > 1 else ""
                    chat["id"] = f"{HOST_ID_PREFIX}{message.id}{part}"
                batch.extend(openai_chat_messages(self.agent_id, chat))
        self.summarizer.record_batch(self.agent_id, batch)
        self._recorded.update(m.id for m in fresh if m.id is not None)

    def context(self) -> tuple[str | None, list[BaseMessage]]:
        """The summary (None while nothing has left the window) and the window as LangChain messages."""
        try:
            context = self.summarizer.get_context(self.agent_id)
        except UnknownAgent:
            return None, []
        summary = context.summary if context.summary.strip() and context.summary != NO_SUMMARY_YET else None
        return summary, convert_to_messages(to_openai_chat("", context.messages))

    def clear(self) -> None:
        if self.summarizer.store.agent_exists(self.agent_id):
            self.summarizer.record_batch(self.agent_id, [NewMessage(Kind.CLEAR, "clear")])


def _with_summary(system: SystemMessage | None, summary: str | None) -> SystemMessage | None:
    """The agent's system prompt, then the summary (LangChain sends one system message)."""
    if summary is None:
        return system
    if system is None:
        return SystemMessage(summary)
    if isinstance(system.content, str):
        return SystemMessage(f"{system.content}\n\n{summary}")
    return SystemMessage([*system.content, {"type": "text", "text": summary}])


class SummarizerMiddleware(AgentMiddleware):
    """Agent middleware for `langchain.agents.create_agent`: record each new message, and send the model
    the summary and the window instead of the whole history. `agent_id` names the conversation; the
    `summarizer` defaults to `build_summarizer()`. Run `summarizer worker` beside the app."""

    def __init__(self, agent_id: str, summarizer: Summarizer | None = None) -> None:
        super().__init__()
        self._memory = _Memory(agent_id, summarizer)

    @property
    def summarizer(self) -> Summarizer:
        return self._memory.summarizer

    def _prepare(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        self._memory.record(request.messages)
        summary, window = self._memory.context()
        system = _with_summary(request.system_message, summary)
        return request.override(messages=cast("list[AnyMessage]", window), system_message=system)

    def _answered(self, response: ModelResponse[Any]) -> ModelResponse[Any]:
        for message in response.result:
            # The state keeps these very objects: with an id given here, the next call knows them.
            message.id = message.id or str(uuid.uuid4())
        self._memory.record(response.result)
        return response

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
    ) -> ModelResponse[Any]:
        return self._answered(handler(self._prepare(request)))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        prepared = await asyncio.to_thread(self._prepare, request)
        response = await handler(prepared)
        return await asyncio.to_thread(self._answered, response)


class SummarizerChatMessageHistory(BaseChatMessageHistory):
    """A `BaseChatMessageHistory` (for `RunnableWithMessageHistory`): `messages` is the summary as a system
    message, then the window; `add_messages` records; `clear` evicts everything into the summary, as
    `/clear` does (history is never deleted)."""

    def __init__(self, agent_id: str, summarizer: Summarizer | None = None) -> None:
        self._memory = _Memory(agent_id, summarizer)

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        summary, window = self._memory.context()
        return [SystemMessage(summary), *window] if summary is not None else window

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        self._memory.record(messages)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        await asyncio.to_thread(self._memory.record, messages)

    async def aget_messages(self) -> list[BaseMessage]:
        return await asyncio.to_thread(lambda: self.messages)

    def clear(self) -> None:
        self._memory.clear()

    async def aclear(self) -> None:
        await asyncio.to_thread(self._memory.clear)


__all__ = ["SummarizerChatMessageHistory", "SummarizerMiddleware"]
