"""The LLM port over the official OpenAI SDK (Chat Completions), for OpenAI and compatible servers.

Ollama, vLLM, llama.cpp's server and most gateways speak the same protocol at their own base URL. The
model is made to call the operations tool (`tool_choice` names the function); its `arguments` arrive as a
JSON string and are parsed here, as untrusted text. `ERRORS` tells the shared classification
(provider_errors.classify) which SDK exception means what, so nothing outside this module knows the SDK's
exception types.
"""

from __future__ import annotations

import json
from typing import Any

import openai

from summarizer.engine.ports import (
    AnswerUnusable,
    LLMAnswer,
    LLMPermanentError,
    LLMRequest,
    LLMTransientError,
)
from summarizer.llm.provider_config import ProviderConfig
from summarizer.llm.provider_errors import MissingCredentials, SdkErrors, classify

NO_KEY = "no-key"
"""Sent as the bearer token to a server at OPENAI_BASE_URL when no key is set (local servers want none)."""
NO_CREDENTIALS = "no OpenAI credentials (set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server)"


def _api_message(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return str(error.message)


ERRORS = SdkErrors(
    base=openai.OpenAIError,
    timeout=openai.APITimeoutError,
    connection=openai.APIConnectionError,
    status=openai.APIStatusError,
    api_message=_api_message,
    no_credentials=NO_CREDENTIALS,
    connection_cause=True,
)


def make_client(config: ProviderConfig) -> openai.OpenAI | None:
    """A client for the configured server; None when there is neither a key nor a base URL."""
    if not config.api_key and not config.base_url:
        return None
    return openai.OpenAI(
        api_key=config.api_key or NO_KEY,
        base_url=config.base_url or None,
        timeout=config.timeout,
        max_retries=config.max_retries,
    )


class OpenAILLM:
    def __init__(self, client: openai.OpenAI | None, model: str, *, official_api: bool = False) -> None:
        self._client = client
        self.model = model
        # api.openai.com wants `max_completion_tokens` (its reasoning models refuse `max_tokens`);
        # compatible servers commonly know only `max_tokens`.
        self._limit_field = "max_completion_tokens" if official_api else "max_tokens"

    @classmethod
    def from_config(cls, config: ProviderConfig) -> OpenAILLM:
        return cls(make_client(config), config.model, official_api=not config.base_url)

    def _require_client(self) -> openai.OpenAI:
        if self._client is None:
            raise MissingCredentials(NO_CREDENTIALS)
        return self._client

    def probe(self) -> str:
        """A free call that proves the key and the model name: the server's models list."""
        client = self._require_client()
        try:
            offered = [model.id for model in client.models.list()]
        except openai.OpenAIError as exc:
            raise classify(exc, ERRORS) from exc
        except ValueError as exc:
            raise LLMTransientError(f"unreadable response body: {exc}") from exc
        if self.model not in offered:
            shown = ", ".join(offered[:8]) + (", ..." if len(offered) > 8 else "")
            raise LLMPermanentError(f"model {self.model} is not offered by the server (it has: {shown})")
        return f"model {self.model} available"

    def complete(self, request: LLMRequest) -> LLMAnswer:
        client = self._require_client()
        tool: Any = {
            "type": "function",
            "function": {
                "name": request.tool_name,
                "description": request.tool_description,
                "parameters": dict(request.tool_schema),
            },
        }
        limit: Any = {self._limit_field: request.max_output_tokens}
        try:
            completion = client.chat.completions.create(
                model=self.model,
                messages=[
                    {"role": "system", "content": request.system},
                    {"role": "user", "content": request.user_text},
                ],
                tools=[tool],
                tool_choice={"type": "function", "function": {"name": request.tool_name}},
                **limit,
            )
        except openai.OpenAIError as exc:
            raise classify(exc, ERRORS) from exc
        except ValueError as exc:  # a 200 whose body is not JSON (a proxy's error page)
            raise AnswerUnusable(f"the body is not the API's JSON: {exc}", cause="not_api_json") from exc
        try:
            return self._answer(completion, request.tool_name)
        except (AttributeError, TypeError, IndexError) as exc:
            raise AnswerUnusable(f"the body is not the API's JSON: {exc}", cause="not_api_json") from exc

    def _answer(self, completion: Any, tool_name: str) -> LLMAnswer:
        usage = completion.usage
        spent: dict[str, Any] = {
            "input_tokens": (usage.prompt_tokens or 0) if usage else 0,
            "output_tokens": (usage.completion_tokens or 0) if usage else 0,
            "model": str(getattr(completion, "model", None) or self.model),
        }
        if not completion.choices:
            raise AnswerUnusable("the answer has no choices", cause="empty", **spent)
        choice = completion.choices[0]
        message = choice.message
        if getattr(message, "refusal", None):
            raise AnswerUnusable("the model refused to summarize", cause="refusal", **spent)
        if choice.finish_reason == "content_filter":
            raise AnswerUnusable(
                "the answer was withheld by a content filter", cause="content_filter", **spent
            )
        if choice.finish_reason == "length":
            raise AnswerUnusable(
                "the answer was cut at the token limit; its tool arguments may be incomplete",
                cause="max_tokens",
                **spent,
            )
        call = next(
            (
                c
                for c in message.tool_calls or ()
                if getattr(c, "function", None) and c.function.name == tool_name
            ),
            None,
        )
        if call is None:
            got = "text" if message.content else "nothing"
            raise AnswerUnusable(
                f"no {tool_name} tool call in the answer (got {got})", cause="no_tool_call", **spent
            )
        try:
            # strict=False: a raw line break or tab inside a string (small models on llama.cpp write them)
            # is read as the character; the gate strips control characters from every text anyway.
            arguments = json.loads(call.function.arguments or "", strict=False)
        except (json.JSONDecodeError, TypeError) as exc:
            raise AnswerUnusable(
                f"malformed tool arguments: not JSON ({exc})", cause="malformed", **spent
            ) from exc
        if not isinstance(arguments, dict):
            raise AnswerUnusable(
                f"malformed tool arguments: expected an object, got {type(arguments).__name__}",
                cause="malformed",
                **spent,
            )
        details = getattr(usage, "prompt_tokens_details", None) if usage else None
        cached = getattr(details, "cached_tokens", None) or 0
        return LLMAnswer(
            tool_input=arguments,
            input_tokens=spent["input_tokens"],
            output_tokens=spent["output_tokens"],
            model=spent["model"],
            cache_read_tokens=cached if isinstance(cached, int) else 0,
        )
