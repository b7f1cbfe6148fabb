"""A local FAKE of the Anthropic Messages API, for driving the real SDK over real HTTP in tests.

It serves `POST /v1/messages`, `POST /v1/messages/count_tokens` and `GET /v1/models/{id}` on 127.0.0.1 (a free port) from a
thread. Each endpoint takes scripted replies in order; with its script used up it falls back to a
plausible default: a tool call covering every `<exchange id="N">` in the prompt, or a count of about
four characters per token. Every request is recorded and can be waited for.

    with FakeMessagesAPI() as api:
        api.script_messages(rate_limited(retry_after=7))
        client = anthropic.Anthropic(base_url=api.base_url, api_key="test", max_retries=0)
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

MESSAGES_PATH = "/v1/messages"
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"
MODELS_PATH = "/v1/models"
DEFAULT_MODEL = "claude-haiku-4-5"

_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Reply:
    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to hold the reply back (cut short when the server stops)."""


@dataclass(frozen=True, slots=True)
class ReceivedRequest:
    path: str
    headers: Mapping[str, str]
    body: Any


def message_body(content: list[dict[str, Any]], *, stop_reason: str | None = "tool_use", **extra: Any) -> Any:
    body = {
        "id": f"msg_fake_{next(_ids)}",
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
    block = {"type": "tool_use", "id": f"toolu_fake_{next(_ids)}", "name": tool_name, "input": tool_input}
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
        "id": f"toolu_fake_{next(_ids)}",
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


Responder = Callable[[Mapping[str, Any]], Reply]


class FakeMessagesAPI:
    def __init__(
        self,
        *,
        messages_default: Responder = default_messages_reply,
        count_default: Responder = default_count_reply,
        models: tuple[str, ...] = (DEFAULT_MODEL,),
    ) -> None:
        self.models = models
        self._scripts: dict[str, deque[Reply]] = {MESSAGES_PATH: deque(), COUNT_TOKENS_PATH: deque()}
        self._defaults: dict[str, Responder] = {
            MESSAGES_PATH: messages_default,
            COUNT_TOKENS_PATH: count_default,
        }
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self.requests: list[ReceivedRequest] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # scripting -------------------------------------------------------------------------------------
    def script_messages(self, *replies: Reply) -> None:
        with self._changed:
            self._scripts[MESSAGES_PATH].extend(replies)

    def script_count_tokens(self, *replies: Reply) -> None:
        with self._changed:
            self._scripts[COUNT_TOKENS_PATH].extend(replies)

    def requests_to(self, path: str) -> list[ReceivedRequest]:
        with self._changed:
            return [r for r in self.requests if r.path == path]

    def wait_for_requests(
        self, count: int, path: str | None = None, timeout: float = 5.0
    ) -> list[ReceivedRequest]:
        """Blocks until `count` requests (to `path`, if given) have arrived; TimeoutError otherwise."""

        def matching() -> list[ReceivedRequest]:
            return [r for r in self.requests if path is None or r.path == path]

        with self._changed:
            if not self._changed.wait_for(lambda: len(matching()) >= count, timeout=timeout):
                raise TimeoutError(f"expected {count} requests, got {len(matching())}")
            return matching()

    # lifecycle -------------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the fake API is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeMessagesAPI:
        handler = _make_handler(self)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="fake-messages-api",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeMessagesAPI:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # serving ---------------------------------------------------------------------------------------
    def _handle(self, path: str, headers: Mapping[str, str], raw: bytes) -> Reply:
        try:
            body: Any = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = raw.decode("utf-8", errors="replace")
        with self._changed:
            self.requests.append(ReceivedRequest(path=path, headers=headers, body=body))
            script = self._scripts.get(path)
            scripted = script.popleft() if script else None
            self._changed.notify_all()
        if scripted is not None:
            return scripted
        responder = self._defaults.get(path)
        if responder is None:
            return error_reply(404, "not_found_error", f"no such endpoint {path}")
        return responder(body if isinstance(body, Mapping) else {})


def _model_reply(api: FakeMessagesAPI, path: str) -> Reply:
    model = path[len(MODELS_PATH) + 1 :]
    if model not in api.models:
        return error_reply(404, "not_found_error", f"model: {model}")
    body = {"type": "model", "id": model, "display_name": model, "created_at": "2025-10-15T00:00:00Z"}
    return Reply(body=body)


def _make_handler(api: FakeMessagesAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            with api._changed:
                api.requests.append(ReceivedRequest(path=path, headers=dict(self.headers.items()), body=None))
                api._changed.notify_all()
            if path.startswith(MODELS_PATH + "/"):
                reply = _model_reply(api, path)
            else:
                reply = error_reply(404, "not_found_error", f"no such endpoint {path}")
            payload = json.dumps(reply.body).encode()
            self.send_response(reply.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            path = self.path.split("?", 1)[0]
            reply = api._handle(path, {k.lower(): v for k, v in self.headers.items()}, raw)
            if reply.delay and api._stopping.wait(reply.delay):
                return
            payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.send_header("request-id", f"req_fake_{next(_ids)}")
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test): nothing left to tell it

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler
