"""The HTTP side of the local provider FAKES: a server on 127.0.0.1 that records what it gets.

`FakeHTTPService` listens on a free port from a thread, records every request (method, path, headers with
lower-case names, body parsed as JSON when it is JSON), lets a test wait for requests with a timeout, keeps
scripted replies per path, and asks its subclass for each answer through
`handle(method, path, headers, body) -> Reply`. A `Reply` body is sent as JSON, or as it is when it is
bytes; a reply's `delay` holds it back, cut short when the server stops. The subclasses
(`fake_messages_api`, `fake_chat_completions`) know their protocol; this module knows none.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, ClassVar, Self


@dataclass(frozen=True, slots=True)
class Reply:
    status: int = 200
    body: Any = None
    """A JSON-able value, or bytes sent as they are."""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to hold the reply back (cut short when the server stops)."""


@dataclass(frozen=True, slots=True)
class ReceivedRequest:
    method: str
    path: str
    headers: Mapping[str, str]
    """Header names in lower case."""
    body: Any
    """The JSON body, the text when it is not JSON, None when there is none."""


Responder = Callable[[Mapping[str, Any]], Reply]
"""Builds the reply to a request body (a fake's default for an endpoint)."""

_ids = itertools.count(1)


def next_id() -> int:
    """A fresh number for the ids the fakes make up (messages, tool calls, requests)."""
    return next(_ids)


def parse_body(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw.decode("utf-8", errors="replace")


class FakeHTTPService:
    """A local HTTP server answering through `handle`; every request is recorded and can be waited for.

    `handle` runs under the service's lock, one request at a time, so replies are picked in the order the
    requests were recorded; only a reply's delay is served outside the lock.
    """

    thread_name: ClassVar[str] = "fake-http-service"

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self.requests: list[ReceivedRequest] = []
        self._scripts: dict[str, deque[Reply]] = {}
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # the protocol ----------------------------------------------------------------------------------
    def handle(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> Reply:
        raise NotImplementedError

    def response_headers(self) -> Mapping[str, str]:
        """Headers every reply carries besides its own (a request id, say)."""
        return {}

    # scripted replies ------------------------------------------------------------------------------
    def script_replies(self, path: str, *replies: Reply) -> None:
        """Replies for the next requests to `path`, in order, before `handle` picks its own."""
        with self._changed:
            self._scripts.setdefault(path, deque()).extend(replies)

    def scripted_reply(self, path: str) -> Reply | None:
        """The next scripted reply for `path`, taken off its script; None when there is none."""
        with self._changed:
            script = self._scripts.get(path)
            return script.popleft() if script else None

    # recorded requests -----------------------------------------------------------------------------
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
                where = "" if path is None else f" to {path}"
                raise TimeoutError(f"expected {count} requests{where}, got {len(matching())}")
            return matching()

    # lifecycle -------------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the fake API is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> Self:
        self._stopping.clear()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name=self.thread_name,
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

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # serving ---------------------------------------------------------------------------------------
    def _receive(self, method: str, path: str, headers: Mapping[str, str], raw: bytes) -> Reply:
        body = parse_body(raw)
        with self._changed:
            self.requests.append(ReceivedRequest(method=method, path=path, headers=headers, body=body))
            self._changed.notify_all()
            return self.handle(method, path, headers, body)


def _make_handler(service: FakeHTTPService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self, method: str) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            path = self.path.split("?", 1)[0]
            headers = {k.lower(): v for k, v in self.headers.items()}
            reply = service._receive(method, path, headers, raw)
            if reply.delay and service._stopping.wait(reply.delay):
                return
            payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for name, value in {**service.response_headers(), **reply.headers}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test): nothing left to tell it

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler
