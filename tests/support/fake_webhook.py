"""A fake webhook receiver: a stdlib HTTP server on a free 127.0.0.1 port, in a thread, that records every
POST body and answers with whatever status the test sets (200 by default, 500 to play a failing sink)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeWebhook:
    def __init__(self) -> None:
        self.status = 200
        self.posts: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._changed = threading.Condition()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with fake._changed:
                    fake.posts.append(json.loads(body))
                    fake.headers.append(dict(self.headers.items()))
                    fake._changed.notify_all()
                    status = fake.status
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: pytest output is not the place for access logs."""

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/hooks/alerts"

    def wait_for(self, count: int, timeout: float = 5.0) -> list[dict[str, Any]]:
        """The posts once at least `count` arrived (AssertionError after `timeout`)."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.posts) >= count, timeout):
                raise AssertionError(f"expected {count} webhook posts, got {len(self.posts)}")
            return list(self.posts)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@contextmanager
def fake_webhook() -> Iterator[FakeWebhook]:
    hook = FakeWebhook()
    hook.start()
    try:
        yield hook
    finally:
        hook.stop()
