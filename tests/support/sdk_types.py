"""Validation against the provider SDKs' own request types (the TypedDicts the `anthropic` and `openai`
packages type their `create` methods with). Pydantic checks a TypedDict's `Iterable` fields lazily, as
they are iterated, so the validated value is walked to the end for every error to surface."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from openai.types.responses import ResponseInputItemParam
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming
from pydantic import TypeAdapter

_ANTHROPIC = TypeAdapter(MessageCreateParamsNonStreaming)
_CHAT = TypeAdapter(CompletionCreateParamsNonStreaming)
_RESPONSES = TypeAdapter(ResponseCreateParamsNonStreaming)
_RESPONSES_ITEMS = TypeAdapter(list[ResponseInputItemParam])


def _walk(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _walk(v) for k, v in value.items()}
    if isinstance(value, list | tuple | Iterator):
        return [_walk(v) for v in value]
    if type(value).__name__ == "ValidatorIterator":
        return [_walk(v) for v in value]
    return value


def check_anthropic_request(body: dict[str, Any]) -> None:
    _walk(_ANTHROPIC.validate_python({**body, "model": "claude-sonnet-4-5", "max_tokens": 1024}))


def check_chat_request(messages: list[dict[str, Any]]) -> None:
    _walk(_CHAT.validate_python({"messages": messages, "model": "gpt-4.1"}))


def check_responses_request(body: dict[str, Any]) -> None:
    _walk(_RESPONSES.validate_python({**body, "model": "gpt-4.1"}))


def check_responses_items(items: list[Any]) -> None:
    _walk(_RESPONSES_ITEMS.validate_python(items))
