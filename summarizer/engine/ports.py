"""The LLM port: what the engine asks of a language model, and the two ways a call can fail.

The error classes live here, not in an adapter, so the worker can turn them into retry or park decisions
without importing an SDK: a transient error is worth retrying later (honouring `retry_after` when the
provider named one); a permanent error will fail the same way again and needs a person or a new request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from summarizer.domain.errors import SummarizerError
from summarizer.domain.messages import EvictedExchange
from summarizer.engine.ladder import UpdatePath
from summarizer.engine.model import SummaryItem


class LLMError(SummarizerError):
    """A call to the LLM did not produce an answer."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class LLMTransientError(LLMError):
    """Rate limits, overload, 5xx, timeouts, connection errors: retry later."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message, status=status)
        self.retry_after = retry_after


class LLMPermanentError(LLMError):
    """Bad request, bad credentials, refusal, unusable output: the same call will fail again."""


UnusableCause = Literal[
    "max_tokens", "refusal", "content_filter", "no_tool_call", "malformed", "not_api_json", "empty"
]


class AnswerUnusable(LLMPermanentError):
    """The model answered, but this answer cannot be used: it stopped at the output limit, refused, was
    filtered, called no tool, sent tool arguments that are not a JSON object, or the body was not the API's
    JSON at all (a proxy's HTML page). A failure of one answer, not of the provider: the same batch may fail
    the same way, a smaller one may not, so the caller splits the batch, and what the model still cannot
    fold the offline summarizer folds. Never a reason to park the agent. `input_tokens`/`output_tokens` are
    what the failed call cost, when the answer said, and `model` the model that answered (what prices
    them; empty when unknown)."""

    def __init__(
        self,
        message: str,
        *,
        cause: UnusableCause,
        status: int | None = None,
        input_tokens: int = 0,
        output_tokens: int = 0,
        model: str = "",
    ) -> None:
        super().__init__(message, status=status)
        self.cause: UnusableCause = cause
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.model = model


@dataclass(frozen=True, slots=True)
class UpdateContext:
    """The structured facts behind a request's text.

    A remote model reads the prompt; the offline summarizer and the fake read this instead, so that they
    answer for the same batch and the same visible items without parsing prose.
    """

    path: UpdatePath
    batch: tuple[EvictedExchange, ...]
    visible_items: tuple[SummaryItem, ...]
    max_item_chars: int
    max_tokens: int
    current_tokens: int
    max_items_per_exchange: int = 4
    """The gate refuses an answer in which more new items than this cite one exchange."""
    target_tokens: int = 0
    """Drops of existing items are accepted only while the summary would be over this."""
    floor_tokens: int = 0
    """Dropping, merging or shortening existing items must not leave the summary under this (nor shrink
    one that was already under it)."""


class PrefixedUser:
    """A user message written as `user_prefix_parts` (what changes least between two updates first)
    followed by `user`."""

    __slots__ = ()
    user: str
    user_prefix_parts: tuple[str, ...]

    @property
    def user_prefix(self) -> str:
        return "".join(self.user_prefix_parts)

    @property
    def user_text(self) -> str:
        return self.user_prefix + self.user


@dataclass(frozen=True, slots=True)
class LLMRequest(PrefixedUser):
    """One update's model call. The user message is `user_prefix + user` (see engine/prompt.py): the
    prefix changes least between two updates of an agent, which a provider's prompt cache can reuse.
    `tool_schema` lists the batch's exchange ids and the shown item ids as enums (for servers that turn a
    schema into a grammar); `stable_tool_schema` is the same without them, byte-identical from call to
    call, for providers whose cache covers the tool definitions and that do not constrain decoding."""

    system: str
    user: str
    tool_name: str
    tool_description: str
    tool_schema: Mapping[str, Any]
    max_output_tokens: int
    context: UpdateContext
    user_prefix_parts: tuple[str, ...] = ()
    """The shown summary, one part per tier, oldest first (engine/prompt.py)."""
    stable_tool_schema: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class LLMAnswer:
    tool_input: Mapping[str, Any] | None
    text: str | None = None
    input_tokens: int = 0
    """Every input token of the call, cached or not."""
    output_tokens: int = 0
    model: str = ""
    offline: bool = False
    cache_read_tokens: int = 0
    """Of `input_tokens`, read from the provider's prompt cache."""
    cache_write_tokens: int = 0
    """Of `input_tokens`, written to the provider's prompt cache."""
    extra: Mapping[str, Any] = field(default_factory=dict)


class LLM(Protocol):
    def complete(self, request: LLMRequest) -> LLMAnswer:
        """One model call. Raises LLMTransientError or LLMPermanentError; never returns partial output."""
        ...
