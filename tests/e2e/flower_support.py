"""Helpers for the Flower tests: an HTTP client with basic auth, a check for Chromium, a tiny WebDriver client.

The browser is driven through chromedriver's W3C WebDriver HTTP API with the standard library, which is all
these tests need (open a page, read its text, take a screenshot, send one CDP command) and adds no
dependency.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import subprocess
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.fleet import free_port, wait_for
from tests.support.services import service_missing

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
# Without the background-networking flags headless Chromium here opens (and gets refused) many connections.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,900",
]


def basic_auth_header(credentials: str) -> str:
    return "Basic " + base64.b64encode(credentials.encode()).decode()


@dataclass(frozen=True)
class Response:
    status: int
    body: str
    content_type: str

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class FlowerClient:
    port: int
    credentials: str

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def get(self, path: str, credentials: str | None = "default", timeout: float = 10) -> Response:
        """GET `path` with the stack's credentials, other ones, or none (`credentials=None`)."""
        request = urllib.request.Request(self.base + path)
        creds = self.credentials if credentials == "default" else credentials
        if creds is not None:
            request.add_header("Authorization", basic_auth_header(creds))
        try:
            with urllib.request.urlopen(request, timeout=timeout) as reply:
                return Response(reply.status, reply.read().decode(), reply.headers.get("Content-Type", ""))
        except urllib.error.HTTPError as error:
            return Response(error.code, error.read().decode(errors="replace"), "")

    def tasks(self) -> dict[str, dict[str, Any]]:
        reply = self.get("/api/tasks")
        assert reply.status == 200, reply
        tasks: dict[str, dict[str, Any]] = reply.json()
        return tasks


def require_chromium() -> None:
    """Chromium and chromedriver come from the setup scripts (`scripts/bootstrap`), never from a test."""
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    if missing:
        service_missing(
            "Chromium (scripts/bootstrap installs chromium and chromium-driver)",
            FileNotFoundError(", ".join(missing)),
        )


class WebDriverError(AssertionError):
    pass


class Browser:
    """Headless Chromium under chromedriver: one session, closed (with both processes) by `close()`."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.log = workdir / "chromedriver.log"
        self.profile = workdir / "chromium-profile"
        self.driver: subprocess.Popen[bytes] | None = None
        self.session: str | None = None

    def _call(self, method: str, path: str, payload: dict[str, Any] | None = None) -> Any:
        data = json.dumps(payload).encode() if payload is not None else None
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as reply:
                return json.loads(reply.read())["value"]
        except urllib.error.HTTPError as error:
            raise WebDriverError(f"{method} {path}: {error.code} {error.read()[:500]!r}") from None

    def _session_call(self, method: str, path: str, payload: dict[str, Any] | None = None) -> Any:
        assert self.session, "no WebDriver session"
        return self._call(method, f"/session/{self.session}{path}", payload)

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.driver = subprocess.Popen(
                [str(CHROMEDRIVER), f"--port={self.port}"],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_for(lambda: self._call("GET", "/status")["ready"], 30, "chromedriver to be ready")
        options = {"binary": str(CHROMIUM), "args": [*CHROMIUM_ARGS, f"--user-data-dir={self.profile}"]}
        capabilities = {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": options}}
        self.session = self._call("POST", "/session", {"capabilities": capabilities})["sessionId"]

    def cdp(self, command: str, params: dict[str, Any]) -> Any:
        return self._session_call("POST", "/goog/cdp/execute", {"cmd": command, "params": params})

    def send_header_everywhere(self, name: str, value: str) -> None:
        """Every request of the page (its XHRs included) carries the header: basic auth without a prompt."""
        self.cdp("Network.enable", {})
        self.cdp("Network.setExtraHTTPHeaders", {"headers": {name: value}})

    def open(self, url: str) -> None:
        self._session_call("POST", "/url", {"url": url})

    def script(self, source: str, *args: Any) -> Any:
        """Run `source` as a function body in the page; `args` are its `arguments`."""
        return self._session_call("POST", "/execute/sync", {"script": source, "args": list(args)})

    def resize(self, width: int, height: int) -> None:
        """The window's size, so a screenshot holds more than the default viewport."""
        self._session_call("POST", "/window/rect", {"width": width, "height": height})

    def page_text(self) -> str:
        return str(self.script("return document.body ? document.body.innerText : ''"))

    def screenshot(self, target: Path) -> None:
        png = base64.b64decode(self._session_call("GET", "/screenshot"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(png)

    def close(self) -> None:
        try:
            if self.session is not None:
                self._call("DELETE", f"/session/{self.session}")
        except Exception:
            pass  # the process group is killed below either way
        finally:
            self.session = None
            if self.driver is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.driver.pid, signal.SIGKILL)
                self.driver.wait(15)
                self.driver = None
