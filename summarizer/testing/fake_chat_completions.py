"""A local FAKE of the OpenAI Chat Completions API, for driving the real `openai` SDK over HTTP in tests.

It follows the public API reference: `POST /v1/chat/completions` answers a `chat.completion` object
(`choices[].message.tool_calls[].function.arguments` is a JSON *string*, `finish_reason`, `usage`), errors
carry `{"error": {"message", "type", "param", "code"}}` and rate limits a `retry-after` header;
`GET /v1/models` and `GET /v1/models/{id}` list the models it claims to serve. It listens on 127.0.0.1 (a
free port) from a thread (`fake_http` owns the server and the recording). With `api_key` set, any other
bearer token gets a 401. Chat replies come from a script, then from an outage reply when one is set, then
from a default: a call of the requested tool adding one item per `<exchange id="N">` in the prompt. Every
request is recorded and can be waited for.

    with FakeChatCompletionsAPI(api_key="sk-test") as api:
        api.script(rate_limited(retry_after=7))
        client = openai.OpenAI(base_url=api.base_url, api_key="sk-test", max_retries=0)
        ...  # the code under test calls client.chat.completions.create(...)
        (sent,) = api.chat_requests()
        assert sent.headers["authorization"] == "Bearer sk-test"
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from summarizer.testing.fake_http import FakeHTTPService, Responder, next_id
from summarizer.testing.fake_http import ReceivedRequest as ReceivedRequest
from summarizer.testing.fake_http import Reply as Reply

CHAT_PATH = "/v1/chat/completions"
MODELS_PATH = "/v1/models"
DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_TOOL = "apply_summary_operations"

# ----- replies -----------------------------------------------------------------------------------------


def completion_body(
    message: Mapping[str, Any],
    *,
    finish_reason: str = "stop",
    model: str = DEFAULT_MODEL,
    prompt_tokens: int = 1200,
    completion_tokens: int = 150,
) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-fake{next_id()}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": dict(message), "finish_reason": finish_reason, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _tool_message(tool_name: str, arguments: str) -> dict[str, Any]:
    call = {
        "id": f"call_fake{next_id()}",
        "type": "function",
        "function": {"name": tool_name, "arguments": arguments},
    }
    return {"role": "assistant", "content": None, "tool_calls": [call], "refusal": None}


def tool_call_reply(
    tool_name: str,
    arguments: Any,
    *,
    prompt_tokens: int = 1200,
    completion_tokens: int = 150,
    model: str = DEFAULT_MODEL,
) -> Reply:
    """The model calls `tool_name` with `arguments` (serialized to the JSON string the API sends)."""
    message = _tool_message(tool_name, json.dumps(arguments))
    return Reply(
        body=completion_body(
            message,
            finish_reason="tool_calls",
            model=model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )
    )


def bad_json_arguments(tool_name: str = DEFAULT_TOOL) -> Reply:
    """A tool call whose `arguments` string is not JSON."""
    return Reply(
        body=completion_body(
            _tool_message(tool_name, '{"add": [{"exchange_ids": [1'), finish_reason="tool_calls"
        )
    )


def raw_arguments_reply(tool_name: str, arguments: str) -> Reply:
    """A tool call whose `arguments` string is exactly `arguments` (e.g. JSON with a raw control character
    inside a string, as llama.cpp's server sends when a small model writes a line break)."""
    return Reply(body=completion_body(_tool_message(tool_name, arguments), finish_reason="tool_calls"))


def length_cut(tool_name: str = DEFAULT_TOOL) -> Reply:
    """The answer hit the token limit inside the tool arguments."""
    return Reply(
        body=completion_body(_tool_message(tool_name, '{"add": [{"text": "Wor'), finish_reason="length")
    )


def malformed_body() -> Reply:
    """A 200 whose body is not JSON (a proxy's HTML page, say)."""
    return Reply(body=b"<html><body>502 Bad Gateway</body></html>")


def refusal(text: str = "I'm sorry, I can't help with that.") -> Reply:
    message = {"role": "assistant", "content": None, "refusal": text}
    return Reply(body=completion_body(message, finish_reason="stop"))


def text_reply(text: str) -> Reply:
    """Plain text where a tool call was required."""
    message = {"role": "assistant", "content": text, "refusal": None}
    return Reply(body=completion_body(message, finish_reason="stop"))


def error_reply(
    status: int,
    message: str,
    *,
    error_type: str,
    code: str | None = None,
    param: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Reply:
    body = {"error": {"message": message, "type": error_type, "param": param, "code": code}}
    return Reply(status=status, body=body, headers=dict(headers or {}))


def unauthorized() -> Reply:
    return error_reply(
        401,
        "Incorrect API key provided: sk-***. You can find your API key in your account settings.",
        error_type="invalid_request_error",
        code="invalid_api_key",
    )


def rate_limited(retry_after: float = 7) -> Reply:
    return error_reply(
        429,
        "Rate limit reached for requests per min (RPM). Please try again later.",
        error_type="requests",
        code="rate_limit_exceeded",
        headers={"retry-after": f"{retry_after:g}"},
    )


def insufficient_quota() -> Reply:
    return error_reply(
        429,
        "You exceeded your current quota, please check your plan and billing details.",
        error_type="insufficient_quota",
        code="insufficient_quota",
    )


def overloaded(status: int = 503) -> Reply:
    """The service is overloaded (503 from OpenAI; some gateways relay a 529)."""
    return error_reply(
        status, "The engine is currently overloaded, please try again later.", error_type="server_error"
    )


def server_error() -> Reply:
    return error_reply(
        500, "The server had an error while processing your request.", error_type="server_error"
    )


def bad_request(message: str = "'messages' is a required property", param: str = "messages") -> Reply:
    return error_reply(400, message, error_type="invalid_request_error", param=param)


def model_not_found(model: str) -> Reply:
    return error_reply(
        404,
        f"The model `{model}` does not exist or you do not have access to it.",
        error_type="invalid_request_error",
        param="model",
        code="model_not_found",
    )


_EXCHANGE_ID = re.compile(r'<exchange id="(\d+)"')


def default_chat_reply(body: Mapping[str, Any]) -> Reply:
    """A call of the requested tool adding one item per exchange named in the prompt."""
    text = "\n".join(str(m.get("content") or "") for m in body.get("messages", []) if isinstance(m, dict))
    choice = body.get("tool_choice")
    tools = body.get("tools") or []
    if isinstance(choice, dict):
        name = str(choice.get("function", {}).get("name", DEFAULT_TOOL))
    elif tools:
        name = str(tools[0].get("function", {}).get("name", DEFAULT_TOOL))
    else:
        return text_reply("Nothing to do.")
    add = [
        {"exchange_ids": [int(x)], "text": f"Worked on the task of exchange {x}.", "importance": "medium"}
        for x in _EXCHANGE_ID.findall(text)
    ]
    return tool_call_reply(name, {"add": add}, model=str(body.get("model") or DEFAULT_MODEL))


class FakeChatCompletionsAPI(FakeHTTPService):
    thread_name = "fake-chat-completions-api"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        models: Sequence[str] = (DEFAULT_MODEL,),
        chat_default: Responder = default_chat_reply,
    ) -> None:
        super().__init__()
        self.api_key = api_key
        self.models = tuple(models)
        self._default = chat_default
        self._outage: Reply | None = None

    # scripting -------------------------------------------------------------------------------------
    def script(self, *replies: Reply) -> None:
        """Replies for the next chat requests, in order."""
        self.script_replies(CHAT_PATH, *replies)

    def start_outage(self, reply: Reply) -> None:
        """Every chat request (after the script) gets `reply` until `end_outage()`."""
        with self._changed:
            self._outage = reply

    def end_outage(self) -> None:
        with self._changed:
            self._outage = None

    def chat_requests(self) -> list[ReceivedRequest]:
        return self.requests_to(CHAT_PATH)

    def wait_for_chat_requests(self, count: int, timeout: float = 5.0) -> list[ReceivedRequest]:
        return self.wait_for_requests(count, CHAT_PATH, timeout)

    @property
    def base_url(self) -> str:
        """The value for OPENAI_BASE_URL (it ends in /v1, like the real one)."""
        return f"{super().base_url}/v1"

    # serving ---------------------------------------------------------------------------------------
    def response_headers(self) -> Mapping[str, str]:
        return {"x-request-id": f"req_fake{next_id()}"}

    def handle(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> Reply:
        if self.api_key is not None and headers.get("authorization") != f"Bearer {self.api_key}":
            return unauthorized()
        if method == "GET" and path == MODELS_PATH:
            return Reply(body={"object": "list", "data": [_model_entry(m) for m in self.models]})
        if method == "GET" and path.startswith(MODELS_PATH + "/"):
            model = path[len(MODELS_PATH) + 1 :]
            return Reply(body=_model_entry(model)) if model in self.models else model_not_found(model)
        if method == "POST" and path == CHAT_PATH:
            if not isinstance(body, dict):
                return bad_request("We could not parse the JSON body of your request.", param="body")
            reply = self.scripted_reply(CHAT_PATH) or self._outage
            return reply if reply is not None else self._default(body)
        return error_reply(404, f"Invalid URL ({method} {path})", error_type="invalid_request_error")


def _model_entry(model: str) -> dict[str, Any]:
    return {"id": model, "object": "model", "created": 1_700_000_000, "owned_by": "fake"}
