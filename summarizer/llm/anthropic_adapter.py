"""The LLM port over the official Anthropic SDK, with forced tool use.

`ERRORS` tells the shared classification (provider_errors.classify) which SDK exception means what, so
nothing outside this module knows SDK exception types. The SDK's own retries are kept small (the worker
owns retries with backoff and knows about the queue); the SDK would otherwise sleep through any
retry-after the API asks for.
"""

from __future__ import annotations

from typing import Any

import anthropic

from summarizer.engine.ports import AnswerUnusable, LLMAnswer, LLMRequest
from summarizer.llm.provider_config import ProviderConfig
from summarizer.llm.provider_errors import MissingCredentials, SdkErrors, classify, retry_after_seconds

__all__ = ["ERRORS", "AnthropicLLM", "make_client", "retry_after_seconds"]


def _api_message(error: anthropic.APIStatusError) -> str:
    return error.api_message or str(error)


ERRORS = SdkErrors(
    base=anthropic.AnthropicError,
    timeout=anthropic.APITimeoutError,
    connection=anthropic.APIConnectionError,
    status=anthropic.APIStatusError,
    api_message=_api_message,
    no_credentials="no Anthropic credentials (set ANTHROPIC_API_KEY)",
    credentials=(anthropic.CredentialsError,),
)


def make_client(
    timeout: float, max_retries: int, *, api_key: str = "", base_url: str = ""
) -> anthropic.Anthropic:
    """A client with the given key and base URL (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL when configured).
    A broken credentials setup fails here, at startup, as a permanent error."""
    try:
        return anthropic.Anthropic(
            api_key=api_key or None, base_url=base_url or None, timeout=timeout, max_retries=max_retries
        )
    except anthropic.AnthropicError as exc:
        raise classify(exc, ERRORS) from exc


_EPHEMERAL: Any = {"type": "ephemeral"}


def cached_tool(request: LLMRequest) -> Any:
    """The tool with its stable schema (the per-call enums would change the cached prefix every call; the
    Messages API does not constrain decoding with them, and the gate checks every id anyway)."""
    return {
        "name": request.tool_name,
        "description": request.tool_description,
        "input_schema": dict(request.stable_tool_schema or request.tool_schema),
    }


def user_blocks(request: LLMRequest) -> Any:
    """The user message as content blocks with a cache breakpoint after each tier of the shown summary
    (oldest first: an older tier changes only with the daily aging, so its prefix stays cached while a
    younger one changes). The system block carries the first breakpoint: tools and instructions, the same
    for every agent. At most three tiers plus the system: within the API's four breakpoints."""
    blocks: list[Any] = [
        {"type": "text", "text": part, "cache_control": _EPHEMERAL}
        for part in request.user_prefix_parts
        if part
    ]
    blocks.append({"type": "text", "text": request.user})
    return blocks


def _content_types(message: Any) -> str:
    return ", ".join(str(getattr(block, "type", "?")) for block in message.content) or "none"


class AnthropicLLM:
    def __init__(self, client: anthropic.Anthropic, model: str) -> None:
        self._client = client
        self.model = model

    @classmethod
    def from_config(cls, config: ProviderConfig) -> AnthropicLLM:
        client = make_client(
            config.timeout, config.max_retries, api_key=config.api_key, base_url=config.base_url
        )
        return cls(client, config.model)

    def probe(self) -> str:
        """A free call that proves the key and the model name: the model's entry in the models list."""
        try:
            model = self._client.models.retrieve(self.model)
        except anthropic.AnthropicError as exc:
            raise classify(exc, ERRORS) from exc
        except TypeError as exc:
            raise MissingCredentials(f"{ERRORS.no_credentials}: {exc}") from exc
        return f"model {model.id} available"

    def complete(self, request: LLMRequest) -> LLMAnswer:
        try:
            message = self._client.messages.create(
                model=self.model,
                max_tokens=request.max_output_tokens,
                system=[{"type": "text", "text": request.system, "cache_control": _EPHEMERAL}],
                messages=[{"role": "user", "content": user_blocks(request)}],
                tools=[cached_tool(request)],
                tool_choice={"type": "tool", "name": request.tool_name},
            )
        except anthropic.AnthropicError as exc:
            raise classify(exc, ERRORS) from exc
        except TypeError as exc:
            # The SDK raises a bare TypeError when it finds no credentials at all.
            if "authentication" not in str(exc):
                raise
            raise MissingCredentials(f"{ERRORS.no_credentials}: {exc}") from exc
        try:
            return self._answer(message, request.tool_name)
        except (AttributeError, TypeError) as exc:  # a 200 whose body is not the API's JSON (a proxy's page)
            raise AnswerUnusable(f"the body is not the API's JSON: {exc}", cause="not_api_json") from exc

    def _answer(self, message: Any, tool_name: str) -> LLMAnswer:
        usage = message.usage
        input_tokens = (
            (usage.input_tokens or 0)
            + (usage.cache_creation_input_tokens or 0)
            + (usage.cache_read_input_tokens or 0)
        )
        spent: dict[str, Any] = {
            "input_tokens": input_tokens,
            "output_tokens": usage.output_tokens or 0,
            "model": str(getattr(message, "model", None) or self.model),
        }
        if message.stop_reason == "refusal":
            raise AnswerUnusable("the model refused to summarize", cause="refusal", **spent)
        if message.stop_reason == "max_tokens":
            raise AnswerUnusable(
                "the answer was cut at max_tokens; its tool input may be incomplete",
                cause="max_tokens",
                **spent,
            )
        if not message.content:
            raise AnswerUnusable("the model returned empty content", cause="empty", **spent)
        block = next(
            (b for b in message.content if b.type == "tool_use" and getattr(b, "name", None) == tool_name),
            None,
        )
        if block is None:
            raise AnswerUnusable(
                f"no {tool_name} tool call in the answer (got {_content_types(message)})",
                cause="no_tool_call",
                **spent,
            )
        if not isinstance(block.input, dict):
            raise AnswerUnusable(
                f"malformed tool input: expected an object, got {type(block.input).__name__}",
                cause="malformed",
                **spent,
            )
        return LLMAnswer(
            tool_input=block.input,
            input_tokens=input_tokens,
            output_tokens=usage.output_tokens or 0,
            model=str(message.model),
            cache_read_tokens=usage.cache_read_input_tokens or 0,
            cache_write_tokens=usage.cache_creation_input_tokens or 0,
        )
