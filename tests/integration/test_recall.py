"""Recall on SQLite and PostgreSQL: the CLI, the HTTP API and the Python facade find evicted and in-window
exchanges by words of their messages and tool calls, rank rare words first, say where each exchange stands
in the provenance ledger, filter, page, and keep token scopes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from summarizer.cli.main import cli
from summarizer.composition import build_sql_store, build_summarizer, build_worker_config
from summarizer.domain.errors import UnknownAgent
from summarizer.domain.recall import InvalidQuery
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine.engine import EngineConfig, SummaryEngine
from summarizer.engine.ports import AnswerUnusable, LLMAnswer, LLMRequest
from summarizer.engine.render import RECALL_POINTER
from summarizer.llm.fake import FakeLLM
from summarizer.service.update import UpdateService
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from tests.support.http_api import SCOPED_TOKEN, api_client, bearer, canonical, cli_settings, exchange, invoke

AGENT = "team-a/coder"
OTHER = "team-b/coder"


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    return cli_settings(monkeypatch, tmp_path, db)


class PoisonedFakeLLM:
    """The fake LLM, except that a batch holding exchange `poison` is cut at the output limit (so the
    exchange ends dropped as unsummarizable)."""

    def __init__(self, poison: int) -> None:
        self.poison = poison
        self.fake = FakeLLM()

    def complete(self, request: LLMRequest) -> LLMAnswer:
        if any(x.id == self.poison for x in request.context.batch):
            raise AnswerUnusable("cut at the output limit", cause="max_tokens")
        return self.fake.complete(request)


def _conversation() -> list[dict[str, Any]]:
    messages = [m for n in range(6) for m in exchange(n)]
    messages[2:4] = [
        canonical("user", "What grace window did we pick for refresh tokens?", id="u-grace"),
        canonical(
            "tool_call",
            "",
            id="c-grace",
            tool_call_id="c1",
            name="read_file",
            input={"path": "src/auth/rotation.py"},
        ),
        canonical("tool_result", "ValueError: clock skew too large", id="r-grace", tool_call_id="c1"),
        canonical("assistant", "We settled on a 30 second grace period for the old token.", id="a-grace"),
    ]
    return messages


def _recorded(db: Database, settings: Settings, *, poison_exchange: int | None = None) -> None:
    client = api_client(db, settings)
    response = client.post(f"/v1/agents/{AGENT}/messages", json={"messages": _conversation()})
    assert response.status_code == 200, response.text
    other = [canonical("user", "grace window for the other team", id="o1")]
    assert client.post(f"/v1/agents/{OTHER}/messages", json={"messages": other}).status_code == 200
    llm = PoisonedFakeLLM(poison_exchange) if poison_exchange else FakeLLM()
    engine = SummaryEngine(llm, ByteEstimateCounter(), EngineConfig())
    UpdateService(build_sql_store(db), engine, build_worker_config(settings)).drain()


def test_recall_finds_an_evicted_exchange_by_words_of_its_messages_and_says_where_it_went(
    db: Database, settings: Settings
) -> None:
    _recorded(db, settings)
    page = json.loads(invoke("recall", AGENT, "what grace period did we decide for token refresh?", "--json"))
    best = page["results"][0]
    assert best["exchange_id"] == 2
    assert best["provenance"]["state"] == "summarized"
    assert best["provenance"]["item_id"]
    assert {"grace", "token"} <= set(best["matched"])
    assert any("grace period" in s["text"] for s in best["snippets"])
    # The other agent's "grace window" is not this agent's memory.
    assert page["total"] == 1
    text = invoke("recall", AGENT, "grace period")
    assert "#2" in text
    assert "summarized in item" in text


def test_tool_inputs_and_results_are_searchable(db: Database, settings: Settings) -> None:
    _recorded(db, settings)
    api = build_summarizer(settings, db)
    by_path = api.recall(AGENT, "rotation.py")
    assert [h.exchange_id for h in by_path.hits] == [2]
    assert by_path.hits[0].snippets[0].kind == "tool_call"
    by_error = api.recall(AGENT, "clock skew", kinds=["tool_result"])
    assert [h.exchange_id for h in by_error.hits] == [2]
    assert api.recall(AGENT, "clock skew", kinds=["assistant"]).hits == ()


def test_rare_words_outrank_common_ones_and_pages_do_not_overlap(db: Database, settings: Settings) -> None:
    _recorded(db, settings)
    api = build_summarizer(settings, db)
    # "answer" is in every exchange's assistant message; "grace" in one exchange only.
    ranked = api.recall(AGENT, "answer grace", limit=50)
    assert ranked.hits[0].exchange_id == 2
    assert ranked.total == 6
    first = api.recall(AGENT, "answer", limit=2)
    second = api.recall(AGENT, "answer", limit=2, offset=2)
    assert first.total == second.total == 5
    assert not {h.exchange_id for h in first.hits} & {h.exchange_id for h in second.hits}
    assert len(second.hits) == 2


def test_a_dropped_exchange_is_found_with_its_reason(db: Database, settings: Settings) -> None:
    _recorded(db, settings, poison_exchange=2)
    hit = build_summarizer(settings, db).recall(AGENT, "grace period").hits[0]
    assert (hit.exchange_id, hit.state, hit.reason) == (2, "dropped", "unsummarizable")


def test_in_window_exchanges_and_time_filters(db: Database, settings: Settings) -> None:
    _recorded(db, settings)
    api = build_summarizer(settings, db)
    newest = api.recall(AGENT, "question 5").hits[0]
    assert (newest.exchange_id, newest.state) == (6, "in_window")
    assert api.recall(AGENT, "grace", until=newest.started_at.replace(year=2000)).hits == ()
    assert api.recall(AGENT, "grace", since=newest.started_at.replace(year=2000)).hits[0].exchange_id == 2


def test_bad_questions_and_unknown_agents_are_clear_errors(db: Database, settings: Settings) -> None:
    _recorded(db, settings)
    api = build_summarizer(settings, db)
    with pytest.raises(InvalidQuery, match="no searchable word"):
        api.recall(AGENT, "what is the ?")
    with pytest.raises(UnknownAgent):
        api.recall("team-a/nobody", "grace")
    with pytest.raises(InvalidQuery, match="limit"):
        api.recall(AGENT, "grace", limit=0)
    refused = CliRunner().invoke(cli, ["recall", AGENT, "the of"])
    assert refused.exit_code == 2
    assert "no searchable word" in refused.output


def test_http_recall_keeps_token_scopes_and_refuses_bad_queries(db: Database, settings: Settings) -> None:
    _recorded(db, settings)
    client = api_client(db, settings)
    found = client.get(f"/v1/agents/{AGENT}/recall", params={"q": "grace period", "kind": ["assistant"]})
    assert found.status_code == 200, found.text
    assert [r["exchange_id"] for r in found.json()["results"]] == [2]
    assert client.get(f"/v1/agents/{AGENT}/recall", params={"q": "the"}).status_code == 422
    assert client.get(f"/v1/agents/{AGENT}/recall", params={"q": "x", "since": "soon"}).status_code == 422
    assert client.get("/v1/agents/team-a/nobody/recall", params={"q": "grace"}).status_code == 404
    scoped = bearer(SCOPED_TOKEN)
    assert client.get(f"/v1/agents/{AGENT}/recall", params={"q": "grace"}, headers=scoped).status_code == 200
    refused = client.get(f"/v1/agents/{OTHER}/recall", params={"q": "grace"}, headers=scoped)
    assert refused.status_code == 403
    assert "grace" not in refused.text
    assert "/v1/agents/{agent_id}/recall" in client.get("/openapi.json").json()["paths"]


def test_the_summary_a_host_sends_ends_with_the_pointer_to_recall(db: Database, settings: Settings) -> None:
    _recorded(db, settings)
    context = build_summarizer(settings, db).get_context(AGENT)
    assert context.summary.rstrip().endswith(RECALL_POINTER)


def test_a_snippet_never_quotes_a_credential(db: Database, settings: Settings) -> None:
    api = build_summarizer(settings, db)
    key = "sk-ant-api03-" + "x" * 40
    api.record_message(AGENT, "user", f"the deploy failed with key {key} rejected by the gateway")
    hit = api.recall(AGENT, "deploy gateway").hits[0]
    assert key not in hit.snippets[0].text
    assert "gateway" in hit.snippets[0].text


def test_a_long_history_is_searched_through_the_index_with_the_same_answers(
    db: Database, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL a short history is read whole and a long one through the word index; both forms
    give the same hits, filters included (the threshold is lowered here to take the long form)."""
    from summarizer.storage.postgres import recall_words as pg_words

    _recorded(db, settings)
    api = build_summarizer(settings, db)
    questions: list[tuple[str, dict[str, Any]]] = [
        ("answer grace", {}),
        ("clock skew", {"kinds": ["tool_result"]}),
        ("answer", {"limit": 2}),
    ]

    def shown() -> list[list[tuple[int, float]]]:
        return [
            [(h.exchange_id, round(h.score, 6)) for h in api.recall(AGENT, q, **kw).hits]
            for q, kw in questions
        ]

    short = shown()
    monkeypatch.setattr(pg_words, "SHORT_HISTORY", 0)
    assert shown() == short
    assert all(short[:2])  # found something to compare


def test_a_capped_word_reads_its_newest_matches_on_both_databases(
    db: Database, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the per-word cap, the messages read are the newest (a common word weighs little, but the
    exchanges it can still lift should be the recent ones), whether the history is read whole or through
    the index."""
    from summarizer.domain.kinds import Kind
    from summarizer.domain.messages import NewMessage
    from summarizer.domain.recall import RecallFilter
    from summarizer.storage.sql.readers import recall as sql_recall

    api = build_summarizer(settings, db)
    api.record_batch(AGENT, [NewMessage(Kind.USER, f"deploy number {n}") for n in range(12)])
    from summarizer.storage.postgres import recall_words as pg_words

    for short in (pg_words.SHORT_HISTORY, 0):
        monkeypatch.setattr(pg_words, "SHORT_HISTORY", short)
        with db.read() as conn:
            found = sql_recall.term_hits(conn, AGENT, ["deploy"], RecallFilter(), cap=3)
        assert found is not None
        assert sorted(seq for _, seq, _ in found.hits["deploy"]) == [10, 11, 12]
