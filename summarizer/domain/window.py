"""Sliding-window rules: exchange boundaries, whole-exchange eviction, the safety floor and `clear`.

The planner is pure. It holds an agent's running totals (`WindowState`), takes messages one at a time
and says what to store: where each message goes, which exchanges begin, and which ranges of exchanges
leave the window and why. It never sees the whole history: the only thing it may ask for is the token
count of an older in-window exchange, through `ExchangeTokens`, so the cost of a message does not grow
with the length of the conversation.

Rules (the foundation issue settles where the design notes differ):
- Messages before an agent's first user message are its preamble: in no exchange, never evicted.
- A user message (not a tool-result carrier) starts an exchange; the exchange holds everything up to the
  next one. It is complete while its last conversation message is an assistant message.
- Metadata messages belong to their exchange and count 0 tokens.
- After each completed exchange and at the end of each batch: while window tokens > budget and more than
  one exchange is in the window, the oldest in-window exchange is evicted whole. Budget 0 never evicts.
- A `clear` message evicts every exchange that began before it, its own included, whatever the budget.
  Messages that arrive after it and before the next user message join that evicted exchange.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage

TITLE_CHARS = 72

ExchangeTokens = Callable[[int], int]
"""Looks up the stored token total of one exchange of this agent, by exchange number."""


class EvictReason(StrEnum):
    BUDGET = "budget"
    CLEAR = "clear"


@dataclass(slots=True)
class WindowState:
    """An agent's running totals. `window_start..last_exchange` are the exchanges in the window."""

    budget: int
    preamble_tokens: int = 0
    window_tokens: int = 0
    next_message_seq: int = 1
    last_exchange: int = 0
    window_start: int = 1
    current_complete: bool = False
    current_tool_calls: list[str] = field(default_factory=list)
    last_created_at: datetime | None = None
    unsummarized: int = 0

    @property
    def exchanges_in_window(self) -> int:
        return max(0, self.last_exchange - self.window_start + 1)


@dataclass(slots=True)
class PlacedMessage:
    message: NewMessage
    seq: int
    exchange: int | None
    tokens: int
    created_at: datetime


@dataclass(slots=True)
class ExchangeChange:
    """A new exchange, or more messages for one that already exists (`is_new` False)."""

    number: int
    is_new: bool
    started_at: datetime
    ended_at: datetime
    added_tokens: int = 0
    added_messages: int = 0
    complete: bool = False
    title: str = ""


@dataclass(frozen=True, slots=True)
class Eviction:
    first: int
    last: int
    reason: EvictReason
    at: datetime

    @property
    def count(self) -> int:
        return self.last - self.first + 1


@dataclass(slots=True)
class Plan:
    """Everything a batch of messages changes, in order."""

    messages: list[PlacedMessage] = field(default_factory=list)
    exchanges: dict[int, ExchangeChange] = field(default_factory=dict)
    evictions: list[Eviction] = field(default_factory=list)

    @property
    def evicted_exchanges(self) -> int:
        return sum(e.count for e in self.evictions)


def title_of(content: str) -> str:
    """The first non-empty line of a user message, shortened for one-line views."""
    for line in content.splitlines():
        text = line.strip()
        if text:
            return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1].rstrip() + "…"
    return "(empty)"


class WindowPlanner:
    """Places messages for one agent and decides evictions. Mutates the given state as it goes."""

    def __init__(self, state: WindowState, exchange_tokens: ExchangeTokens) -> None:
        self.state = state
        self._lookup = exchange_tokens
        self._known_tokens: dict[int, int] = {}
        self.plan = Plan()

    def add(self, message: NewMessage, tokens: int, created_at: datetime) -> PlacedMessage:
        """Place one message (already counted); raises InvalidMessage if it breaks a rule."""
        st = self.state
        if st.last_created_at is not None and created_at < st.last_created_at:
            raise InvalidMessage(
                f"created_at {created_at.isoformat()} is before the previous message's "
                f"{st.last_created_at.isoformat()} (timestamps must not decrease)",
                message.where,
            )
        self._check_tool_link(message)
        if message.starts_exchange:
            self._start_exchange(message, created_at)
        placed = PlacedMessage(message, st.next_message_seq, st.last_exchange or None, tokens, created_at)
        st.next_message_seq += 1
        st.last_created_at = created_at
        if message.kind is Kind.TOOL_CALL and message.tool_call_id:
            st.current_tool_calls.append(message.tool_call_id)
        self.plan.messages.append(placed)
        if st.last_exchange == 0:
            st.preamble_tokens += tokens
            st.window_tokens += tokens
        else:
            self._grow_exchange(message, tokens, created_at)
        if message.kind is Kind.CLEAR and st.last_exchange >= st.window_start:
            self._evict_through(st.last_exchange, EvictReason.CLEAR, created_at)
        elif message.kind is Kind.ASSISTANT:
            self.enforce_budget(created_at)
        return placed

    def enforce_budget(self, at: datetime) -> None:
        """Evict oldest whole exchanges until the window fits, keeping at least the newest exchange."""
        st = self.state
        while st.budget > 0 and st.window_tokens > st.budget and st.exchanges_in_window > 1:
            self._evict_through(st.window_start, EvictReason.BUDGET, at)

    def _check_tool_link(self, message: NewMessage) -> None:
        st = self.state
        if message.kind is Kind.TOOL_CALL:
            if not message.tool_call_id:
                raise InvalidMessage("tool_call needs a tool_call_id", message.where)
            return
        if message.kind is Kind.TOOL_RESULT:
            call_id = message.tool_call_id
            if not call_id or call_id not in st.current_tool_calls:
                raise InvalidMessage(
                    f"tool_result with tool_call_id {call_id!r} matches no tool_call earlier in the same exchange",
                    message.where,
                )

    def _start_exchange(self, message: NewMessage, at: datetime) -> None:
        st = self.state
        st.last_exchange += 1
        st.current_complete = False
        st.current_tool_calls = []
        self.plan.exchanges[st.last_exchange] = ExchangeChange(
            number=st.last_exchange, is_new=True, started_at=at, ended_at=at, title=title_of(message.content)
        )
        self._known_tokens[st.last_exchange] = 0

    def _grow_exchange(self, message: NewMessage, tokens: int, at: datetime) -> None:
        st = self.state
        number = st.last_exchange
        change = self.plan.exchanges.get(number)
        if change is None:
            change = ExchangeChange(number=number, is_new=False, started_at=at, ended_at=at)
            self.plan.exchanges[number] = change
            self._known_tokens[number] = self._lookup(number)
        change.added_tokens += tokens
        change.added_messages += 1
        change.ended_at = at
        self._known_tokens[number] += tokens
        if number >= st.window_start:
            st.window_tokens += tokens
        if message.kind is Kind.ASSISTANT:
            st.current_complete = True
        elif message.kind in (Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.TOOL, Kind.USER):
            st.current_complete = False
        change.complete = st.current_complete

    def _tokens_of(self, number: int) -> int:
        known = self._known_tokens.get(number)
        if known is None:
            known = self._lookup(number)
            self._known_tokens[number] = known
        return known

    def _evict_through(self, last: int, reason: EvictReason, at: datetime) -> None:
        st = self.state
        first = st.window_start
        for number in range(first, last + 1):
            st.window_tokens -= self._tokens_of(number)
        st.window_start = last + 1
        st.unsummarized += last - first + 1
        evictions = self.plan.evictions
        if (
            evictions
            and evictions[-1].reason is reason
            and evictions[-1].at == at
            and evictions[-1].last + 1 == first
        ):
            prev = evictions[-1]
            evictions[-1] = Eviction(prev.first, last, reason, at)
        else:
            evictions.append(Eviction(first, last, reason, at))
