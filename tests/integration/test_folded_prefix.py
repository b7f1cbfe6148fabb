"""An answer that leaves out the batch's last exchange (as a small model that stops early writes it): the
exchanges before it are folded by the model, the left-out one waits and a later update folds it; nothing is
forgotten and no answer's good items are thrown away. On SQLite and PostgreSQL, through the update service."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from summarizer.composition import build_sql_store, build_worker_config
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine.engine import EngineConfig, SummaryEngine
from summarizer.engine.ports import LLMAnswer, LLMRequest
from summarizer.llm.fake import FakeLLM
from summarizer.service.provenance import Provenance
from summarizer.service.update import UpdateService
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from tests.support.http_api import api_client, canonical, cli_settings, exchange

AGENT = "stops-early"


class StopsEarlyLLM:
    """The fake LLM's answer without the batch's last exchange (neither covered nor dropped) whenever the
    batch holds more than one."""

    def __init__(self) -> None:
        self.fake = FakeLLM()
        self.batches: list[tuple[int, ...]] = []

    def complete(self, request: LLMRequest) -> LLMAnswer:
        ids = tuple(x.id for x in request.context.batch)
        self.batches.append(ids)
        answer = self.fake.complete(request)
        if len(ids) < 2 or answer.tool_input is None:
            return answer
        ops: dict[str, Any] = dict(answer.tool_input)
        for kind in ("add", "drop"):
            kept = [
                {**op, "exchange_ids": [x for x in op["exchange_ids"] if x != ids[-1]]}
                for op in ops.get(kind, [])
            ]
            ops[kind] = [op for op in kept if op["exchange_ids"]]
        return replace(answer, tool_input=ops)


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    return cli_settings(monkeypatch, tmp_path, db)


def test_the_left_out_last_exchange_waits_and_is_folded_later(db: Database, settings: Settings) -> None:
    client = api_client(db, settings)
    conversation = [m for n in range(8) for m in exchange(n)] + [canonical("user", "still here", id="last")]
    assert client.post(f"/v1/agents/{AGENT}/messages", json={"messages": conversation}).status_code == 200
    llm = StopsEarlyLLM()
    engine = SummaryEngine(llm, ByteEstimateCounter(), EngineConfig())
    report = UpdateService(build_sql_store(db), engine, build_worker_config(settings)).drain()
    assert report.runs >= 2
    assert len(llm.batches) == report.runs  # every answer was used: none rejected, no batch split
    several = [batch for batch in llm.batches if len(batch) > 1]
    assert several, "no batch of more than one exchange: the case under test did not occur"
    first = several[0]
    # The next batch starts with the exchange the first answer left out.
    assert any(later[0] == first[-1] for later in llm.batches[llm.batches.index(first) + 1 :])
    ledger = Provenance(build_sql_store(db)).ledger(AGENT)
    evicted = [e for e in ledger if e.state != "in_window"]
    assert evicted
    assert {e.state for e in evicted} == {"summarized"}, [(e.id, e.state, e.reason) for e in evicted]
