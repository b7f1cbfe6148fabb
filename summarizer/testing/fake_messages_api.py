"""A local FAKE of the Anthropic Messages API, for driving the real SDK over real HTTP in tests.

It is written from the public API reference: it serves `POST /v1/messages`, `POST /v1/messages/count_tokens`
and `GET /v1/models/{id}` on 127.0.0.1 (a free port) from a thread (`fake_http` owns the server and the
recording). Each endpoint takes scripted replies in order; with its script used up it falls back to a
plausible default: a tool call covering every `<exchange id="N">` in the prompt, or a count of about four
characters per token. Every request is recorded and can be waited for.

    with FakeMessagesAPI() as api:
        api.script_messages(rate_limited(retry_after=7))
        client = anthropic.Anthropic(base_url=api.base_url, api_key="test", max_retries=0)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from summarizer.testing.fake_http import FakeHTTPService, Responder, next_id
from summarizer.testing.fake_http import ReceivedRequest as ReceivedRequest
from summarizer.testing.fake_http import Reply as Reply

MESSAGES_PATH = "/v1/messages"
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"
MODELS_PATH = "/v1/models"
DEFAULT_MODEL = "claude-haiku-4-5"


def message_body(content: list[dict[str, Any]], *, stop_reason: str | None = "tool_use", **extra: Any) -> Any:
    body = {
        "id": f"msg_fake_{next_id()}",
        "type": "message",
        "role": "assistant",
        "model": extra.pop("model", DEFAULT_MODEL),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": extra.pop("input_tokens", 1200),
            "output_tokens": extra.pop("output_tokens", 150),
        },
    }
    body.update(extra)
    return body


def tool_use_reply(
    tool_name: str,
    tool_input: Any,
    *,
    input_tokens: int = 1200,
    output_tokens: int = 150,
    model: str = DEFAULT_MODEL,
) -> Reply:
    block = {"type": "tool_use", "id": f"toolu_fake_{next_id()}", "name": tool_name, "input": tool_input}
    return Reply(
        body=message_body([block], input_tokens=input_tokens, output_tokens=output_tokens, model=model)
    )


def error_reply(
    status: int, error_type: str, message: str, headers: Mapping[str, str] | None = None
) -> Reply:
    body = {"type": "error", "error": {"type": error_type, "message": message}}
    return Reply(status=status, body=body, headers=dict(headers or {}))


def rate_limited(retry_after: float = 7) -> Reply:
    return error_reply(
        429,
        "rate_limit_error",
        "Number of requests has exceeded your rate limit.",
        {"retry-after": f"{retry_after:g}"},
    )


def overloaded() -> Reply:
    return error_reply(529, "overloaded_error", "Overloaded")


def server_error() -> Reply:
    return error_reply(500, "api_error", "Internal server error")


def unauthorized() -> Reply:
    return error_reply(401, "authentication_error", "invalid x-api-key")


def bad_request(message: str = "messages: field required") -> Reply:
    return error_reply(400, "invalid_request_error", message)


def slow(seconds: float, reply: Reply | None = None) -> Reply:
    """A reply that arrives after `seconds`: longer than a client timeout, it becomes a timeout."""
    base = reply or Reply(body=message_body([{"type": "text", "text": "late"}], stop_reason="end_turn"))
    return Reply(status=base.status, body=base.body, headers=base.headers, delay=seconds)


def malformed_tool_input(tool_name: str) -> Reply:
    """A tool call whose input is not an object."""
    block = {
        "type": "tool_use",
        "id": f"toolu_fake_{next_id()}",
        "name": tool_name,
        "input": "add: everything",
    }
    return Reply(body=message_body([block]))


def text_reply(text: str) -> Reply:
    """A plain text answer where a tool call was required."""
    return Reply(body=message_body([{"type": "text", "text": text}], stop_reason="end_turn"))


def refusal() -> Reply:
    text = "I can't help with summarizing this conversation."
    return Reply(body=message_body([{"type": "text", "text": text}], stop_reason="refusal"))


def empty_content() -> Reply:
    return Reply(body=message_body([], stop_reason="end_turn"))


def count_reply(tokens: int) -> Reply:
    return Reply(body={"input_tokens": tokens})


_EXCHANGE_ID = re.compile(r'<exchange id="(\d+)"')


def _user_text(body: Mapping[str, Any]) -> str:
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(block.get("text", "")) for block in content if isinstance(block, dict))
    return "\n".join(parts)


def default_messages_reply(body: Mapping[str, Any]) -> Reply:
    """A tool call adding one item per exchange named in the prompt."""
    tools = body.get("tools") or [{"name": "apply_summary_operations"}]
    ids = [int(x) for x in _EXCHANGE_ID.findall(_user_text(body))]
    add = [
        {"exchange_ids": [x], "text": f"Worked on the task of exchange {x}.", "importance": "medium"}
        for x in ids
    ]
    return tool_use_reply(str(tools[0]["name"]), {"add": add})


def default_count_reply(body: Mapping[str, Any]) -> Reply:
    text = _user_text(body) + str(body.get("system") or "")
    return count_reply(max(1, -(-len(text) // 4)))


class FakeMessagesAPI(FakeHTTPService):
    thread_name = "fake-messages-api"

    def __init__(
        self,
        *,
        messages_default: Responder = default_messages_reply,
        count_default: Responder = default_count_reply,
        models: tuple[str, ...] = (DEFAULT_MODEL,),
    ) -> None:
        super().__init__()
        self.models = models
        self._defaults: dict[str, Responder] = {
            MESSAGES_PATH: messages_default,
            COUNT_TOKENS_PATH: count_default,
        }

    # scripting -------------------------------------------------------------------------------------
    def script_messages(self, *replies: Reply) -> None:
        self.script_replies(MESSAGES_PATH, *replies)

    def script_count_tokens(self, *replies: Reply) -> None:
        self.script_replies(COUNT_TOKENS_PATH, *replies)

    # serving ---------------------------------------------------------------------------------------
    def response_headers(self) -> Mapping[str, str]:
        return {"request-id": f"req_fake_{next_id()}"}

    def handle(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> Reply:
        if method == "GET" and path.startswith(MODELS_PATH + "/"):
            return self._model_reply(path[len(MODELS_PATH) + 1 :])
        if method != "POST" or path not in self._defaults:
            return error_reply(404, "not_found_error", f"no such endpoint {path}")
        scripted = self.scripted_reply(path)
        if scripted is not None:
            return scripted
        return self._defaults[path](body if isinstance(body, Mapping) else {})

    def _model_reply(self, model: str) -> Reply:
        if model not in self.models:
            return error_reply(404, "not_found_error", f"model: {model}")
        body = {"type": "model", "id": model, "display_name": model, "created_at": "2025-10-15T00:00:00Z"}
        return Reply(body=body)
