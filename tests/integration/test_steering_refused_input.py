"""Steering input that is not what it claims is refused alike on both databases: pins and instructions that
are not text (lone surrogates, NUL, control characters) answer 422 over HTTP and one line in the CLI; pin
names must be printable; budgets are read strictly; and a lowered summary cap leaves out the pins past
their share, with an alert naming them, so the summary keeps within the cap and new items still fit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from summarizer.cli.main import cli
from summarizer.composition import build_sql_store
from summarizer.domain.steering_text import shown
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine.cap import estimate_text
from summarizer.engine.engine import EngineConfig, SummaryEngine
from summarizer.engine.pins import PinLimits
from summarizer.llm.fake import FakeLLM
from summarizer.service.results import WorkerConfig
from summarizer.service.steering import Steering
from summarizer.service.update import UpdateService
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.stores.alert_store import SqlAlertStore
from summarizer.storage.values import PINS_TRIMMED
from tests.support.http_api import api_client, cli_settings, exchange
from tests.support.services import ROOT
from tests.support.workload import feed, make_store

AGENT = "team-a/coder"
JSON = {"content-type": "application/json"}

BAD_TEXTS = {
    "lone surrogate": b'"bad \\ud800 half"',
    "NUL": b'"a\\u0000b"',
    "escape sequence": b'"\\u001b[31mred"',
    "carriage return": b'"line\\rover"',
    "not a string": b"NaN",
    "infinity": b"Infinity",
}
BAD_NAMES = [
    "\x1b[31mred",
    "a\rb",
    "evil\u202etxt",
    "Now\u200b",
    "zero\u200bwidth",
    " lead",
    "trail ",
    "a\nb",
]


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    wired = cli_settings(monkeypatch, tmp_path, db)
    client = api_client(db, wired)
    messages = [m for n in range(3) for m in exchange(n)]
    assert client.post(f"/v1/agents/{AGENT}/messages", json={"messages": messages}).status_code == 200
    return wired


def _client(db: Database, settings: Settings) -> Any:
    client = api_client(db, settings)
    return type(client)(client.app, headers=dict(client.headers), raise_server_exceptions=False)


def run(args: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """`summarizer ARGS` as a process, with the test's SUMMARIZER_* settings (`cli_settings`)."""
    return subprocess.run(
        [sys.executable, "-m", "summarizer", *args],
        input=stdin,
        capture_output=True,
        env=dict(os.environ),
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def one_line(done: subprocess.CompletedProcess[bytes]) -> str:
    """The one line a refused command prints (exit 1, no traceback)."""
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 1, (done.returncode, err)
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


def _pins(db: Database) -> list[str]:
    summary = build_sql_store(db).load_summary(AGENT)
    return [] if summary is None else [p.name for p in summary.pins]


@pytest.mark.parametrize("body", BAD_TEXTS.values(), ids=BAD_TEXTS.keys())
def test_http_pins_and_instructions_that_are_not_text_answer_422(
    db: Database, settings: Settings, body: bytes
) -> None:
    client = _client(db, settings)
    pinned = client.post(f"/v1/agents/{AGENT}/pins", content=b'{"text": ' + body + b"}", headers=JSON)
    assert pinned.status_code == 422, pinned.text
    said = client.put(f"/v1/agents/{AGENT}/instructions", content=b'{"text": ' + body + b"}", headers=JSON)
    assert said.status_code == 422, said.text
    assert _pins(db) == []
    assert client.get(f"/v1/agents/{AGENT}/instructions").json()["instructions"] is None


@pytest.mark.parametrize("name", BAD_NAMES, ids=[shown(n) for n in BAD_NAMES])
def test_pin_names_must_be_printable_and_are_shown_escaped(
    db: Database, settings: Settings, name: str
) -> None:
    client = _client(db, settings)
    refused = client.post(f"/v1/agents/{AGENT}/pins", json={"text": "keep this", "name": name})
    assert refused.status_code == 422, refused.text
    for hidden in ("\x1b", "\u202e", "\u200b", "\r"):
        assert hidden not in refused.text
    line = one_line(run(["pin", AGENT, "keep this", "--name", name]))
    assert "printable characters" in line
    for hidden in ("\x1b", "\u202e", "\u200b", "\r"):
        assert hidden not in line
    assert _pins(db) == []


@pytest.mark.parametrize(
    ("stdin", "says"),
    [
        (b"caf\xe9 au lait", "not UTF-8 text (byte 0xe9 at offset 3)"),
        (b"nul \x00 inside", "NUL character"),
        (b"bell \x07 rings", "control character"),
    ],
)
def test_cli_pins_and_instructions_from_stdin_are_refused_in_one_line(
    db: Database, settings: Settings, stdin: bytes, says: str
) -> None:
    for args in (["pin", AGENT, "-"], ["agent", "instructions", AGENT, "-"]):
        assert says in one_line(run(args, stdin))
    assert _pins(db) == []


def test_a_command_line_argument_that_was_not_utf8_is_refused(db: Database, settings: Settings) -> None:
    line = one_line(run(["pin", AGENT, "caf\udce9"]))  # the argument's byte 0xe9, as Python passes it on
    assert "lone surrogate" in line
    assert "not valid UTF-8" in line
    assert _pins(db) == []


@pytest.mark.parametrize("typed", ["5,00", "1,000", "1_000", "-5", "NaN", "inf", "1e3", "5.0.0", "$ 5", ""])
def test_budgets_are_read_strictly(db: Database, settings: Settings, typed: str) -> None:
    result = CliRunner().invoke(cli, ["agent", "budget-cost", "--", AGENT, typed])
    assert result.exit_code != 0, result.output
    assert "Traceback" not in result.output
    client = _client(db, settings)
    assert client.get(f"/v1/agents/{AGENT}/budget-cost").json()["own_budget_usd"] is None
    answer = client.put(f"/v1/agents/{AGENT}/budget-cost", json={"usd": typed})
    assert answer.status_code == 422, answer.text
    assert client.get(f"/v1/agents/{AGENT}/budget-cost").json()["own_budget_usd"] is None


def test_http_budget_nan_is_422_and_plain_amounts_are_taken(db: Database, settings: Settings) -> None:
    client = _client(db, settings)
    for body in (b'{"usd": NaN}', b'{"usd": -Infinity}'):
        answer = client.put(f"/v1/agents/{AGENT}/budget-cost", content=body, headers=JSON)
        assert answer.status_code == 422, answer.text
    assert (
        client.put(f"/v1/agents/{AGENT}/budget-cost", json={"usd": "$5.00"}).json()["own_budget_usd"] == "5"
    )
    result = CliRunner().invoke(cli, ["agent", "budget-cost", AGENT, "12.5"])
    assert result.exit_code == 0, result.output
    assert client.get(f"/v1/agents/{AGENT}/budget-cost").json()["own_budget_usd"] == "12.5"


def test_a_lowered_cap_leaves_out_the_pins_past_their_share_with_an_alert(db: Database) -> None:
    store = make_store(db, batch_size=1)
    feed(store, "a", 4)
    big = WorkerConfig(batch_size=1, batch_max_wait=0, follow_on_seconds=0)
    UpdateService(build_sql_store(db), SummaryEngine(FakeLLM(), ByteEstimateCounter()), big).drain("a")
    first = build_sql_store(db).load_summary("a")
    assert first is not None
    pins = Steering(build_sql_store(db), PinLimits(10_000, 0.25), estimate_text)
    for n in range(1, 4):
        pins.pin("a", f"Rule {n}: " + "keep this word for word. " * 45, name=f"rule-{n}")
    lowered = 1_600  # the pins' share is now 400 tokens: the first rule fits, the others do not
    engine = SummaryEngine(FakeLLM(), ByteEstimateCounter(), EngineConfig(max_tokens=lowered))
    feed(store, "a", 4, start=5)
    UpdateService(build_sql_store(db), engine, big).drain("a")
    summary = build_sql_store(db).load_summary("a")
    assert summary is not None
    assert [p.name for p in summary.pins] == ["rule-1"]
    assert 0 < summary.token_count <= lowered
    assert summary.items, "the new exchanges found no room"
    assert (summary.covered_through_exchange_id or 0) > (first.covered_through_exchange_id or 0)
    found = [a for a in SqlAlertStore(db).list_alerts(open_only=True, limit=None) if a.kind == PINS_TRIMMED]
    assert [a.agent_id for a in found] == ["a"]
    assert "rule-2, rule-3" in found[0].message
    assert found[0].details["pins"] == ["rule-2", "rule-3"]
    refused = Steering(build_sql_store(db), PinLimits(lowered, 0.25), estimate_text)
    with pytest.raises(Exception, match="pin refused"):
        refused.pin("a", "another " * 400, name="rule-4")
