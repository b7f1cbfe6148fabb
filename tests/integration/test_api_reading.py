"""The host API: recording through the facade, the context a host sends, and the history view."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import insert

from summarizer.api import NO_SUMMARY_YET, SUMMARY_UNAVAILABLE, Summarizer
from summarizer.domain.errors import UnknownAgent
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.engine.model import Summary
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import summaries
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig
from summarizer.views import history_json, history_text

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def render(record: Summary, now: datetime) -> str:
    return " | ".join(item.text for item in record.items)


def facade(db: Database, budget: int = 70, woken: list[str] | None = None) -> Summarizer:
    store = ConversationStore(db, StoreConfig(window_tokens=budget, batch_size=1), clock=lambda: T0)

    def wake(agents: Sequence[str]) -> None:
        if woken is not None:
            woken.extend(agents)

    return Summarizer(
        store,
        default_budget=budget,
        render_summary=render,
        on_queued=wake,
        clock=lambda: T0,
    )


def feed(api: Summarizer, agent: str, exchanges: int) -> None:
    api.record_message(agent, "system", "You are a coding agent.", tokens=5, created_at=T0)
    for i in range(exchanges):
        at = T0 + timedelta(hours=i)
        api.record_batch(
            agent,
            [
                NewMessage(Kind.USER, f"Task {i}: do the thing", tokens=10, created_at=at),
                NewMessage(
                    Kind.TOOL_CALL,
                    "",
                    tool_call_id=f"t{i}",
                    name="bash",
                    input={"cmd": "make"},
                    tokens=5,
                    created_at=at,
                ),
                NewMessage(Kind.TOOL_RESULT, "ok", tool_call_id=f"t{i}", tokens=5, created_at=at),
                NewMessage(Kind.MARK, "cp", created_at=at),
                NewMessage(Kind.ASSISTANT, f"Done {i}", tokens=10, created_at=at),
            ],
        )


def test_context_is_placeholder_summary_then_preamble_then_window(db: Database) -> None:
    api = facade(db)
    feed(api, "a", 4)
    ctx = api.get_context("a")
    assert ctx.summary == NO_SUMMARY_YET
    assert ctx.summary_version is None
    assert ctx.messages[0].kind is Kind.SYSTEM
    assert ctx.messages[1].kind is Kind.USER
    assert {m.exchange_id for m in ctx.messages[1:]} == {3, 4}
    assert sum(m.tokens for m in ctx.messages) <= 70


def test_context_shows_latest_committed_summary(db: Database) -> None:
    api = facade(db)
    feed(api, "a", 2)
    with db.write() as conn:
        conn.execute(
            insert(summaries).values(
                agent_id="a",
                version=3,
                items=[
                    {
                        "id": "i1",
                        "tier": "session",
                        "text": "Set up the build",
                        "started_at": T0.isoformat(),
                        "ended_at": T0.isoformat(),
                        "source_tokens": 20,
                        "importance": "medium",
                        "exchange_ids": [1],
                    }
                ],
                token_count=5,
                covered_through_exchange_id=1,
                last_aged_on=date(2026, 3, 1),
                updated_at=T0,
            )
        )
    ctx = api.get_context("a")
    assert (ctx.summary, ctx.summary_version) == ("Set up the build", 3)


def test_unreadable_summary_gives_the_unavailable_placeholder(db: Database) -> None:
    api = facade(db)
    feed(api, "a", 1)
    with db.write() as conn:
        conn.execute(
            insert(summaries).values(
                agent_id="a", version=1, items=[{"no_text": 1}], token_count=1, updated_at=T0
            )
        )

    def broken(record: Summary, now: datetime) -> str:
        raise KeyError("text")

    api._render = broken
    assert api.summary_text("a") == (SUMMARY_UNAVAILABLE, None)
    assert api.get_context("a").summary == SUMMARY_UNAVAILABLE


def test_summary_placeholder_when_database_is_down(tmp_path: object) -> None:
    dead = connect_database("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=1")
    api = facade(dead)
    assert api.summary_text("a") == (SUMMARY_UNAVAILABLE, None)
    dead.dispose()


def test_unknown_agent_is_a_clear_error(db: Database) -> None:
    api = facade(db)
    with pytest.raises(UnknownAgent, match="unknown agent 'ghost'"):
        api.get_context("ghost")
    with pytest.raises(UnknownAgent):
        api.history("ghost")


def test_queued_agents_wake_the_workers_after_commit(db: Database) -> None:
    woken: list[str] = []
    api = facade(db, woken=woken)
    feed(api, "a", 4)
    assert woken
    assert set(woken) == {"a"}


def test_history_json_shape_in_conversation_order(db: Database) -> None:
    api = facade(db)
    feed(api, "a", 4)
    payload = history_json(api.history("a"))
    assert payload["agent_id"] == "a"
    assert payload["budget_tokens"] == 70
    assert [e["id"] for e in payload["exchanges"]] == [1, 2, 3, 4]
    assert [e["state"] for e in payload["exchanges"]] == ["evicted", "evicted", "window", "window"]
    first = payload["exchanges"][0]
    assert set(first) == {
        "id",
        "state",
        "evict_reason",
        "tokens",
        "message_count",
        "started_at",
        "evicted_at",
        "title",
    }
    assert (first["evict_reason"], first["tokens"], first["message_count"], first["title"]) == (
        "budget",
        30,
        5,
        "Task 0: do the thing",
    )


def test_history_text_lists_evicted_then_window(db: Database) -> None:
    api = facade(db)
    feed(api, "a", 4)
    text = history_text(api.history("a"), T0 + timedelta(hours=5))
    assert text.index("[Outside window") < text.index('Exchange 1: "Task 0') < text.index("[Inside window")
    assert 'Exchange 4: "Task 3: do the thing" (current, 30, 5 messages)' in text


def test_reads_do_not_wait_for_a_writer_holding_its_lock(db: Database) -> None:
    """get_context returns while another transaction holds the agent's write lock."""
    import threading

    from sqlalchemy import select as sa_select
    from sqlalchemy import update as sa_update

    from summarizer.storage.sql.statements.schema import agents as agents_table

    api = facade(db)
    feed(api, "a", 2)
    locked = threading.Event()
    release = threading.Event()

    def writer() -> None:
        with db.write() as conn:
            conn.execute(sa_select(agents_table).where(agents_table.c.id == "a").with_for_update())
            conn.execute(sa_update(agents_table).where(agents_table.c.id == "a").values(window_budget=70))
            locked.set()
            release.wait(timeout=30)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert locked.wait(timeout=10)
        done = threading.Event()
        result: list[int] = []

        def reader() -> None:
            result.append(len(api.get_context("a").messages))
            done.set()

        threading.Thread(target=reader, daemon=True).start()
        assert done.wait(timeout=5), "a read waited for the writer's lock"
        assert result[0] > 0
    finally:
        release.set()
        thread.join(timeout=30)
