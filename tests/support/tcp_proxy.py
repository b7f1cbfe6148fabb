"""A TCP forwarder the test opens and closes: a database that is "down" until the test lets it appear."""

from __future__ import annotations

import socket
import threading
from contextlib import suppress


class TcpProxy:
    """Listens on a free port from the start; connections are refused (closed at once) until `open()`,
    then forwarded to `target`."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._open = threading.Event()
        self._stop = threading.Event()
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.2)
        self.port = int(self._server.getsockname()[1])
        self._thread = threading.Thread(target=self._serve, name="tcp-proxy", daemon=True)
        self._thread.start()

    def open(self) -> None:
        self._open.set()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._server.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._server.accept()
            except TimeoutError:
                continue
            if not self._open.is_set():
                client.close()  # the database is "down"
                continue
            upstream = socket.create_connection(self.target)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(a, b), daemon=True).start()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    with suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with suppress(OSError):
        sink.shutdown(socket.SHUT_WR)
