"""The Python API for hosts: record messages, read the context to send, read the history.

Reading never waits on the summary workers: it returns the last committed summary, whatever they are doing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Unpack

import structlog

from summarizer import context_formats
from summarizer.domain.agent_ids import check_agent_id
from summarizer.domain.clock import utcnow
from summarizer.domain.errors import SummarizerError, UnknownAgent
from summarizer.domain.history import HistoryPage, HistoryView
from summarizer.domain.kinds import Kind, parse_kind
from summarizer.domain.messages import NewMessage, StoredMessage
from summarizer.domain.recall import RecallPage
from summarizer.engine.model import Pin, Summary
from summarizer.engine.render import NO_SUMMARY_YET, RECALL_POINTER, SUMMARY_UNAVAILABLE, render_pins
from summarizer.ingest import raw_sdks
from summarizer.service.recall import Recall, RecallOptions
from summarizer.service.steering import Steering
from summarizer.storage.port import AgentSteering, ConversationStorePort, IngestReport

log = structlog.get_logger(__name__)


SummaryRenderer = Callable[[Summary, datetime], str]
"""Turns a stored summary into the text a host sends; supplied by the summary engine."""


@dataclass(frozen=True, slots=True)
class Context:
    agent_id: str
    summary: str
    summary_version: int | None
    messages: tuple[StoredMessage, ...]

    def to_anthropic(self) -> dict[str, Any]:
        """`system` and `messages` for the Anthropic SDK's `messages.create` (summarizer.context_formats)."""
        return context_formats.to_anthropic(self.summary, self.messages)

    def to_openai_chat(self) -> list[Any]:
        """`messages` for the OpenAI SDK's `chat.completions.create`, the summary as a system message
        (dicts shaped as its `ChatCompletionMessageParam`; typed `Any` so that they pass where it is wanted)."""
        return context_formats.to_openai_chat(self.summary, self.messages)

    def to_responses(self) -> dict[str, Any]:
        """`instructions` (preamble and summary) and `input` for the OpenAI SDK's `responses.create`."""
        return context_formats.to_responses(self.summary, self.messages)


class Summarizer:
    """The host-facing facade. Build it with `summarizer.composition.build_summarizer(settings)`."""

    def __init__(
        self,
        store: ConversationStorePort,
        *,
        default_budget: int,
        render_summary: SummaryRenderer,
        summary_max_tokens: int | None = None,
        departed: Callable[[str], str] | None = None,
        on_queued: Callable[[Sequence[str]], None] | None = None,
        clock: Callable[[], datetime] = utcnow,
        recall: Recall | None = None,
        steering: Steering | None = None,
    ) -> None:
        self.store = store
        self._steering = steering
        self._default_budget = default_budget
        self.summary_max_tokens = summary_max_tokens
        self._departed = departed
        """The configured cap, shown beside a summary's size."""
        self._render = render_summary
        self._on_queued = on_queued
        self._clock = clock
        self._recall = recall

    def record_message(self, agent_id: str, kind: Kind | str, content: str, **fields: Any) -> IngestReport:
        """Record one message; `fields` are NewMessage fields (tool_call_id, name, input, created_at, ...)."""
        message = NewMessage(
            kind=parse_kind(kind) if isinstance(kind, str) else kind, content=content, **fields
        )
        return self.record_batch(agent_id, [message])

    def record_batch(self, agent_id: str, batch: Sequence[NewMessage]) -> IngestReport:
        check_agent_id(agent_id)
        return self._after(self.store.record(agent_id, batch))

    def record_many(self, records: Sequence[tuple[str, NewMessage]]) -> IngestReport:
        return self._after(self.store.record_many(records))

    def record_anthropic(self, agent_id: str, message: object) -> IngestReport:
        """Record what the Anthropic SDK answered (a `Message`) or any Messages API message(s)."""
        return self.record_batch(agent_id, raw_sdks.anthropic_messages(agent_id, message))

    def record_openai(self, agent_id: str, completion: object) -> IngestReport:
        """Record what the OpenAI SDK answered (a `ChatCompletion`'s first choice) or chat message(s)."""
        return self.record_batch(agent_id, raw_sdks.openai_chat_messages(agent_id, completion))

    def record_responses(self, agent_id: str, response: object) -> IngestReport:
        """Record what the OpenAI Responses API answered (a `Response`'s output) or input item(s)."""
        return self.record_batch(agent_id, raw_sdks.responses_messages(agent_id, response))

    def _after(self, report: IngestReport) -> IngestReport:
        if report.queued_agents and self._on_queued is not None:
            try:
                self._on_queued(report.queued_agents)
            except Exception as exc:  # a lost wake-up only delays: the dispatcher re-reads the queue
                log.warning("queue.wakeup_failed", agents=report.queued_agents, error=str(exc))
        return report

    def create_agent(self, agent_id: str, *, budget: int | None = None, parent: str | None = None) -> None:
        """Create an agent (a no-op if it exists). A forked agent inherits its parent's budget override."""
        check_agent_id(agent_id)
        if parent is not None:
            check_agent_id(parent, "parent")
        self.store.create_agent(agent_id, budget=budget, parent=parent)

    def set_budget(self, agent_id: str, budget: int | None) -> None:
        """Override (or with None, reset) one agent's window budget; applies from its next message."""
        check_agent_id(agent_id)
        self.store.set_budget(agent_id, budget)

    def unsummarized(self, agent_id: str) -> int:
        """How many evicted exchanges of the agent still wait for a summary."""
        check_agent_id(agent_id)
        return self.store.unsummarized(agent_id)

    def ping(self) -> None:
        """Raise if the database cannot be reached."""
        self.store.ping()

    def history(self, agent_id: str) -> HistoryView:
        check_agent_id(agent_id)
        view = self.store.history(agent_id, self._default_budget)
        if view is None:
            raise UnknownAgent(agent_id)
        return view

    def history_page(self, agent_id: str, limit: int, before: int | None = None) -> HistoryPage:
        """The newest `limit` exchanges (of those before exchange `before`, when given), oldest first, with
        the count of all and the `before` of the next older page; only the page is read."""
        check_agent_id(agent_id)
        if limit < 1:
            raise ValueError("a history page holds at least one exchange")
        page = self.store.history_page(agent_id, self._default_budget, limit, before)
        if page is None:
            raise UnknownAgent(agent_id)
        return page

    def exchange_messages(self, agent_id: str, exchange_id: int) -> tuple[StoredMessage, ...]:
        """One exchange's messages, evicted or not (empty if the agent has no such exchange)."""
        check_agent_id(agent_id)
        found = self.store.exchange_messages(agent_id, exchange_id)
        if found is None:
            raise UnknownAgent(agent_id)
        return tuple(found)

    def summary(self, agent_id: str) -> Summary | None:
        """The agent's last committed summary (None before its first update); `UnknownAgent` if none."""
        check_agent_id(agent_id)
        if not self.store.agent_exists(agent_id):
            raise UnknownAgent(agent_id)
        return self.store.load_summary(agent_id)

    def summary_text(self, agent_id: str, now: datetime | None = None) -> tuple[str, int | None]:
        """The rendered summary and its version; a placeholder, never an exception, when it can't be read.
        With recall available, the summary ends with a line saying that older history can be recalled."""
        try:
            record = self.store.load_summary(agent_id)
            if record is None or not record.items:
                # Never "nothing has left the window" when something has: say how many left and where.
                text = self._departed(agent_id) if self._departed is not None else NO_SUMMARY_YET
                if text != NO_SUMMARY_YET:
                    text = self._with_pointer(text)
                pins = render_pins(record.pins) if record is not None else ""
                return pins + text, record.version if record else None
            return self._with_pointer(self._render(record, now or self._clock())), record.version
        except Exception as exc:
            log.warning("summary.read_failed", agent_id=agent_id, error=f"{type(exc).__name__}: {exc}")
            return SUMMARY_UNAVAILABLE, None

    def _with_pointer(self, text: str) -> str:
        return f"{text.rstrip()}\n\n{RECALL_POINTER}\n" if self._recall is not None else text

    def recall(self, agent_id: str, query: str, **options: Unpack[RecallOptions]) -> RecallPage:
        """The agent's stored exchanges (evicted or in the window) that best match `query`, best first, each
        with where it stands (summarized in which item, dropped why, waiting, in the window) and snippets.
        `options`: `since`, `until`, `kinds`, `limit` (5) and `offset` (0), as `Recall.search` takes them.
        `UnknownAgent` for an unknown agent, `InvalidQuery` for a question with no searchable word."""
        check_agent_id(agent_id)
        if self._recall is None:
            raise SummarizerError("recall is not available: this Summarizer was built without a recall store")
        return self._recall.search(agent_id, query, **options)

    # ----- steering: pins and summary instructions ---------------------------------------------------
    @property
    def steering(self) -> Steering:
        if self._steering is None:
            raise SummarizerError(
                "pins are not available: this Summarizer was built without a steering store"
            )
        return self._steering

    def pin(self, agent_id: str, text: str, *, name: str | None = None, by: str = "api") -> Pin:
        """Keep `text` word for word at the head of the agent's summary (a new summary version)."""
        return self.steering.pin(agent_id, text, name=name, by=by)

    def unpin(self, agent_id: str, name: str, *, by: str = "api") -> Pin:
        return self.steering.unpin(agent_id, name, by=by)

    def pins(self, agent_id: str) -> tuple[Pin, ...]:
        return self.steering.pins(agent_id)

    def set_instructions(self, agent_id: str, text: str | None) -> None:
        """Add the operator's words to what the model is asked for this agent (None: clear them)."""
        self.steering.set_instructions(agent_id, text)

    def agent_steering(self, agent_id: str) -> AgentSteering:
        return self.steering.steering(agent_id)

    def get_context(self, agent_id: str, now: datetime | None = None) -> Context:
        """What a host sends to its LLM: the summary, then the preamble and in-window messages."""
        check_agent_id(agent_id)
        window = self.store.window_messages(agent_id)
        if window is None:
            raise UnknownAgent(agent_id)
        summary, version = self.summary_text(agent_id, now)
        return Context(agent_id=agent_id, summary=summary, summary_version=version, messages=tuple(window))


__all__ = ["NO_SUMMARY_YET", "SUMMARY_UNAVAILABLE", "Context", "Summarizer", "SummarizerError"]
