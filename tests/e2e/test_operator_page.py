"""The operator's page in headless Chromium against a real `summarizer serve` on a temporary SQLite database.

Seeded through the HTTP API and drained by `summarizer drain`, so the page shows a real summary. The test
logs in (a wrong token first), reads the fleet, acknowledges an alert, opens an agent, clicks a summary item
to see the exchanges it came from, opens one of them to read its messages, and logs in again with a scoped
token. Screenshots stay in tmp_path.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import urllib.request
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from summarizer.storage.backends import connect_database
from summarizer.storage.sql.writers.alerts import raise_once
from tests.acceptance.cli import run_cli
from tests.e2e.flower_support import Browser, require_chromium
from tests.e2e.test_http_curl import conversation, server_env, spawn_serve
from tests.support.fleet import free_port, wait_for
from tests.support.http_api import OPERATOR_TOKEN, SCOPED_TOKEN

pytestmark = pytest.mark.slow

OWN = "team-a/build-bot"
OTHER = "team-b/reviewer"


def post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {OPERATOR_TOKEN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        answer: dict[str, Any] = json.loads(reply.read())
    return answer


def healthy(base: str) -> bool:
    with urllib.request.urlopen(base + "/healthz", timeout=5) as reply:
        return bool(reply.status == 200)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """A running `summarizer serve` with two agents (one summarized) and an open alert; yields its URL."""
    url = f"sqlite:///{(tmp_path / 'page.db').as_posix()}"
    env = server_env(tmp_path, url)
    assert run_cli("db", "upgrade", env=env).returncode == 0
    port = free_port()
    log = tmp_path / "serve.log"
    proc = spawn_serve(env, port, log)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: healthy(base), 60, "summarizer serve")
        assert post(base, f"/v1/agents/{OWN}/messages", conversation())["evicted_exchanges"] >= 2
        post(base, f"/v1/agents/{OTHER}/messages", {"messages": [{"kind": "user", "content": "Review PR 7"}]})
        drained = run_cli("drain", env=env)
        assert drained.returncode == 0, drained.stderr
        db = connect_database(url)
        try:
            with db.write() as conn:
                raise_once(
                    conn,
                    kind="summary_updates_failing",
                    agent_id=OTHER,
                    message="3 summary updates failed in a row",
                    details={},
                    now=datetime.now(UTC),
                )
        finally:
            db.dispose()
        yield base
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(15)
    assert "Traceback" not in log.read_text(), log.read_text()


def log_in(browser: Browser, token: str) -> None:
    browser.script(
        "document.getElementById('token').value = arguments[0];"
        "document.getElementById('login-form').requestSubmit();",
        token,
    )


def visible_text(browser: Browser, element_id: str) -> str:
    return str(browser.script("return document.getElementById(arguments[0]).innerText;", element_id))


def wait_on_page(browser: Browser, condition: Callable[[], object], what: str, shots: Path) -> None:
    """wait_for, plus a screenshot and the page's text when the page never gets there."""
    try:
        wait_for(condition, 30, what)
    except AssertionError as error:
        browser.screenshot(shots / "failed.png")
        raise AssertionError(f"{error}; the page shows:\n{browser.page_text()}") from None


def test_the_operator_page_in_headless_chromium(served: str, tmp_path: Path) -> None:
    require_chromium()
    browser = Browser(tmp_path)
    try:
        browser.start()
        browser.resize(1400, 1500)
        browser.open(f"{served}/ui/")
        wait_on_page(browser, lambda: "Log in" in browser.page_text(), "the login form", tmp_path)

        log_in(browser, "wrong-token-0123456789")
        wait_on_page(
            browser, lambda: "not accepted" in visible_text(browser, "login-error"), "the refusal", tmp_path
        )

        log_in(browser, OPERATOR_TOKEN)
        wait_on_page(
            browser, lambda: OTHER in visible_text(browser, "agents"), "the fleet view's agent list", tmp_path
        )
        wait_on_page(browser, lambda: "completed (" in visible_text(browser, "chart"), "the chart", tmp_path)
        assert browser.script("return document.querySelectorAll('#chart svg rect.ok').length") == 24
        assert "completed (0)" not in visible_text(browser, "chart")  # the drained runs are drawn
        assert "PARKED" in visible_text(browser, "queue-cards").upper()
        idle = browser.script(
            "return document.querySelector('#queue-cards .stat.idle .stat-value').textContent"
        )
        assert idle == "1"  # the drained agent is up to date
        assert "3 summary updates failed in a row" in visible_text(browser, "alerts")
        browser.screenshot(tmp_path / "fleet.png")

        browser.script(
            "document.getElementById('agent-q').value = 'BUILD';"
            "document.getElementById('agent-search').requestSubmit();"
        )
        wait_on_page(browser, lambda: OTHER not in visible_text(browser, "agents"), "the search", tmp_path)
        assert OWN in visible_text(browser, "agents")

        browser.script("document.querySelector('#alerts button').click()")
        wait_on_page(browser, lambda: "acknowledged" in visible_text(browser, "alerts"), "the ack", tmp_path)

        browser.script(
            "Array.from(document.querySelectorAll('#agents a')).find(a => a.textContent === arguments[0]).click()",
            OWN,
        )
        wait_on_page(
            browser,
            lambda: "Previously in This Session" in visible_text(browser, "tiers"),
            "the tiers",
            tmp_path,
        )
        assert browser.script("return document.querySelectorAll('#tiers .item').length") >= 1
        ledger = visible_text(browser, "provenance")  # the real GET .../provenance of the server under test
        assert "summarized" in ledger, ledger
        assert "Nothing has been dropped." in ledger
        assert "You are a build bot." in visible_text(browser, "window")

        browser.script("document.querySelector('#tiers .item').click()")
        wait_on_page(
            browser,
            lambda: "was made from" in visible_text(browser, "sources"),
            "the item's exchanges",
            tmp_path,
        )
        sources = visible_text(browser, "sources")
        assert "Run build 0" in sources  # the title of the first evicted exchange, from /history
        assert "build 0 ok" not in sources

        browser.script(
            "Array.from(document.querySelectorAll('#sources .source'))"
            ".find(row => row.textContent.includes('Run build 0')).querySelector('details summary').click()"
        )
        wait_on_page(
            browser,
            lambda: "build 0 ok" in visible_text(browser, "sources"),
            "the exchange's messages",
            tmp_path,
        )
        sources = visible_text(browser, "sources")  # from GET .../exchanges/ID of the server under test
        assert "Build 0 passed: step0-0" in sources  # the assistant's text
        assert " make · " in sources  # the tool call's name
        assert '{"n":0}' in sources  # and its input
        browser.screenshot(tmp_path / "agent.png")

        # The recall box: the real GET .../recall of the server under test, and the exchange's messages.
        browser.script(
            "document.getElementById('recall-q').value = 'when did step2 run?';"
            "document.getElementById('recall-form').requestSubmit();"
        )
        wait_on_page(
            browser, lambda: "best first" in visible_text(browser, "recall"), "the recall results", tmp_path
        )
        found = visible_text(browser, "recall")
        first = next(line for line in found.splitlines() if line.startswith("#"))
        assert first.startswith("#3 Run build 2"), found  # the one exchange with "step2" ranks first
        assert "summarized in item" in found or "in the window" in found
        browser.script("document.querySelector('#recall .source details summary').click()")
        wait_on_page(
            browser,
            lambda: "Build 2 passed" in visible_text(browser, "recall"),
            "a result's messages",
            tmp_path,
        )
        browser.script(
            "document.getElementById('recall-q').value = 'the';"
            "document.getElementById('recall-form').requestSubmit();"
        )
        wait_on_page(
            browser, lambda: "no searchable word" in visible_text(browser, "recall"), "the refusal", tmp_path
        )

        # The panel's drawing of drops, given a ledger in the documented shape of GET .../provenance (the
        # seeded agent has dropped nothing, so the document is handed to the page's function directly).
        browser.script(
            "drawProvenance({ok: true, body: {agent_id: arguments[0], exchanges: ["
            "{id: 1, state: 'summarized', item_id: 'x1', version: 1, reason: null},"
            "{id: 2, state: 'dropped', item_id: null, version: 2, reason: 'cap'}]}},"
            "new Map([[2, {title: 'Run build 1'}]]))",
            OWN,
        )
        ledger = visible_text(browser, "provenance")
        assert "1 summarized · 1 dropped" in ledger
        assert "Run build 1\tcap" in ledger

        browser.script("document.getElementById('logout').click()")
        assert visible_text(browser, "agents") == ""  # nothing read with the old token stays
        log_in(browser, SCOPED_TOKEN)
        wait_on_page(
            browser, lambda: OWN in visible_text(browser, "agents"), "the scoped agent list", tmp_path
        )
        assert OTHER not in visible_text(browser, "agents")
        assert "limited to some agents" in visible_text(browser, "fleet-scoped")
    finally:
        browser.close()
    for name in ("fleet.png", "agent.png"):
        png = (tmp_path / name).read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        assert len(png) > 20_000, name  # a rendered page, not a blank one
