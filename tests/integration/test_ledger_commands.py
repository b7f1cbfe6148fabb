"""An exchange given up on, as the operator sees it, on SQLite and PostgreSQL: `alerts` names the exchange
and the cause, `provenance` gives the same cause, `history --json` carries each exchange's provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from summarizer.composition import build_sql_store, build_worker_config
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine.engine import EngineConfig, SummaryEngine
from summarizer.engine.ports import AnswerUnusable, LLMAnswer, LLMRequest
from summarizer.llm.fake import FakeLLM
from summarizer.service.update import UpdateService
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from tests.support.http_api import api_client, cli_settings, exchange, invoke

AGENT = "team-a/coder"
CAUSE = "the answer stopped at the output limit"
PROVENANCE_KEYS = {"state", "item_id", "version", "reason"}


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    return cli_settings(monkeypatch, tmp_path, db)


run = invoke


class PoisonedFakeLLM:
    """The fake LLM, except that any batch holding exchange `poison` is cut at the output limit."""

    def __init__(self, poison: int) -> None:
        self.poison = poison
        self.fake = FakeLLM()

    def complete(self, request: LLMRequest) -> LLMAnswer:
        if any(x.id == self.poison for x in request.context.batch):
            raise AnswerUnusable(CAUSE, cause="max_tokens")
        return self.fake.complete(request)


def test_an_exchange_given_up_on_shows_the_same_cause_in_alerts_and_provenance(
    db: Database, settings: Settings
) -> None:
    client = api_client(db, settings)
    messages = [m for n in range(8) for m in exchange(n)]
    assert client.post(f"/v1/agents/{AGENT}/messages", json={"messages": messages}).status_code == 200
    waiting = [e["id"] for e in json.loads(run("provenance", AGENT, "--json"))["exchanges"]]
    poison = waiting[1]
    engine = SummaryEngine(PoisonedFakeLLM(poison), ByteEstimateCounter(), EngineConfig())
    UpdateService(build_sql_store(db), engine, build_worker_config(settings)).drain()

    ledger = {e["id"]: e for e in json.loads(run("provenance", AGENT, "--json"))["exchanges"]}
    dropped = ledger[poison]
    assert (dropped["state"], dropped["reason"]) == ("dropped", "unsummarizable")
    assert dropped["detail"] == f"max_tokens: {CAUSE}"
    assert {e["state"] for x, e in ledger.items() if x != poison} <= {"summarized", "in_window"}
    assert f"#{poison}: dropped in version {dropped['version']} (unsummarizable: max_tokens: {CAUSE})" in run(
        "provenance", AGENT
    )

    listed = run("alerts")
    assert f"exchange {poison} of agent {AGENT!r} could not be summarized (max_tokens: {CAUSE})" in listed
    assert "exchange_unsummarizable" in listed
    (alert,) = json.loads(run("alerts", "--json"))
    assert alert["severity"] == "warning"
    assert alert["details"] == {"exchange_id": poison, "cause": dropped["detail"]}
    assert "acknowledged" in run("alerts", "ack", str(alert["id"]))
    # A one-off event: once seen, nothing is left to watch, so the ack closes it.
    assert "exchange_unsummarizable" not in run("alerts")
    assert "[acknowledged]" in run("alerts", "--all")

    history = json.loads(run("history", AGENT, "--json"))
    by_id = {e["id"]: e for e in history["exchanges"]}
    assert set(by_id) == set(ledger)
    for x, entry in by_id.items():
        provenance = entry["provenance"]
        assert set(provenance) >= PROVENANCE_KEYS
        assert provenance == {k: v for k, v in ledger[x].items() if k != "id"}
        assert (provenance["state"] == "in_window") == (entry["state"] == "window")
    assert by_id[poison]["provenance"]["reason"] == "unsummarizable"
    # The HTTP API's history carries the same provenance (its schema always has `detail`, null unless dropped).
    served = client.get(f"/v1/agents/{AGENT}/history")
    assert served.status_code == 200
    assert {e["id"]: {**e["provenance"], "detail": None} for e in served.json()["exchanges"]} == {
        x: {**e["provenance"], "detail": None} for x, e in by_id.items()
    }
    assert next(e for e in served.json()["exchanges"] if e["id"] == poison)["provenance"]["detail"] == (
        f"max_tokens: {CAUSE}"
    )
    summarized = [e["provenance"] for e in history["exchanges"] if e["provenance"]["state"] == "summarized"]
    assert summarized
    assert all(p["item_id"] and p["version"] for p in summarized)
