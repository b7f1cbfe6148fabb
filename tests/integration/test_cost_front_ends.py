"""Cost through every front end, on both databases: `summarizer cost` and `agent budget-cost` (and their
refusals), the HTTP routes with their scopes, the Prometheus counter per model, and a fork that inherits
its parent's budget. The fake model is priced through SUMMARIZER_PRICES, as an operator prices any model."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from summarizer import composition
from summarizer.cli.main import cli, main
from summarizer.composition.costs import build_costs
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import summary_runs
from tests.support.http_api import SCOPED_TOKEN, api_client, bearer, cli_settings, invoke

AGENT = "team-a/coder"
PRICES = '{"fake-llm": {"input": "3", "output": "15"}}'


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    wired = cli_settings(monkeypatch, tmp_path, db)
    monkeypatch.setenv("SUMMARIZER_PRICES", PRICES)
    return wired.model_copy(update={"prices": PRICES})


def _spend(db: Database, settings: Settings) -> Decimal:
    """Run updates for AGENT; what its recorded tokens cost at $3 / $15 per million, computed here."""
    api = composition.build_summarizer(settings, db)
    words = " ".join(f"w{i}" for i in range(40))
    batch = [NewMessage(Kind.USER if i % 2 == 0 else Kind.ASSISTANT, f"step {i}: {words}") for i in range(16)]
    api.record_batch(AGENT, batch)
    composition.build_update_service(settings, db).drain()
    with db.read() as conn:
        tokens_in, tokens_out = conn.execute(
            select(func.sum(summary_runs.c.llm_input_tokens), func.sum(summary_runs.c.llm_output_tokens))
        ).one()
    assert tokens_in > 0
    return (Decimal(tokens_in) * 3 + Decimal(tokens_out) * 15) / 1_000_000


def test_cost_on_the_command_line_is_the_recorded_tokens_times_the_prices(
    db: Database, settings: Settings
) -> None:
    expected = _spend(db, settings)
    doc: dict[str, Any] = json.loads(invoke("cost", "--json"))
    assert Decimal(doc["total_usd"]) == expected
    assert doc["lines"][0]["key"] == doc["until"][:10]
    by_agent = json.loads(invoke("cost", AGENT, "--by", "agent", "--since", "1d", "--json"))
    assert [(line["key"], Decimal(line["usd"])) for line in by_agent["lines"]] == [(AGENT, expected)]
    text = invoke("cost", "--by", "model")
    assert "fake-llm" in text
    assert f"total: ${doc['total_usd']}" in text
    assert json.loads(invoke("cost", "nobody", "--json"))["lines"] == []

    shown = json.loads(invoke("agent", "budget-cost", AGENT, "2.50", "--json"))
    assert shown["own_budget_usd"] == "2.5"
    assert Decimal(shown["spent_today_usd"]) == expected
    invoke("agent", "create", "team-a/fork", "--parent", AGENT)
    inherited = build_costs(settings, db).budget("team-a/fork", datetime.now(UTC))
    assert inherited.own_usd == Decimal("2.5")  # a fork inherits its parent's budget
    assert "a daily cost budget of $3" in invoke("agent", "budget-cost", "team-a/fork", "$3.00")
    assert "no daily cost budget" in invoke("agent", "budget-cost", AGENT, "none")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("agent", "budget-cost", AGENT, "lots"), "expected an amount in USD"),
        (("agent", "budget-cost", "--", AGENT, "-1"), "between 0 and"),
        (("agent", "budget-cost", AGENT, "1e12"), "between 0 and"),
        (("agent", "budget-cost", AGENT, "NaN"), "between 0 and"),
        (("cost", "--since", "soon"), "expected a duration"),
        (("cost", "--by", "week"), "'week' is not one of"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(
    db: Database, settings: Settings, args: tuple[str, ...], says: str
) -> None:
    composition.build_summarizer(settings, db).record_batch(AGENT, [NewMessage(Kind.USER, "hello")])
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code != 0
    assert says in result.output
    assert "Traceback" not in result.output


def test_an_unknown_agent_is_named_without_a_traceback(
    db: Database, settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.argv", ["summarizer", "agent", "budget-cost", "nobody", "1"])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 1
    assert capsys.readouterr().err.strip() == "error: unknown agent 'nobody'"


def test_cost_over_http_with_its_scopes_and_the_metric_per_model(db: Database, settings: Settings) -> None:
    expected = _spend(db, settings)
    client = api_client(db, settings)
    fleet = client.get("/v1/cost", params={"since": "1d", "by": "model"})
    assert fleet.status_code == 200, fleet.text
    assert Decimal(fleet.json()["total_usd"]) == expected
    assert [line["key"] for line in fleet.json()["lines"]] == ["fake-llm"]
    scoped = bearer(SCOPED_TOKEN)
    assert client.get("/v1/cost", headers=scoped).status_code == 403
    mine = client.get(f"/v1/agents/{AGENT}/cost", headers=scoped)
    assert Decimal(mine.json()["total_usd"]) == expected
    assert client.get("/v1/agents/team-b/x/cost", headers=scoped).status_code == 403
    assert client.get("/v1/cost", params={"since": "never"}).status_code == 422

    assert client.put(f"/v1/agents/{AGENT}/budget-cost", json={"usd": "1"}, headers=scoped).status_code == 403
    put = client.put(f"/v1/agents/{AGENT}/budget-cost", json={"usd": "0.75"})
    assert put.status_code == 200, put.text
    assert put.json()["budget_usd"] == "0.75"
    assert client.get(f"/v1/agents/{AGENT}/budget-cost", headers=scoped).json()["own_budget_usd"] == "0.75"
    assert client.put(f"/v1/agents/{AGENT}/budget-cost", json={"usd": -1}).status_code == 422
    assert client.put("/v1/agents/nobody/budget-cost", json={"usd": 1}).status_code == 404
    assert client.put(f"/v1/agents/{AGENT}/budget-cost", json={"usd": None}).json()["own_budget_usd"] is None

    metrics = client.get("/metrics").text
    line = next(
        m for m in metrics.splitlines() if m.startswith('summarizer_llm_cost_usd_total{model="fake-llm"}')
    )
    assert Decimal(line.split()[-1]) == pytest.approx(expected)  # Prometheus carries floats
