"""The conversation store's rules, each test run on SQLite and on PostgreSQL (the `db` fixture)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import event, func, select, text

from summarizer.domain.errors import InvalidMessage, UnknownAgent
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.service.recall import Recall
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.reading import load_exchange_messages, load_history, load_window_messages
from summarizer.storage.sql.readers.recall import SqlRecallStore
from summarizer.storage.sql.statements.schema import agents, exchanges, messages, summary_update_queue
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig
from tests.support.rows import agents_waiting_past

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def store_for(db: Database, budget: int = 100, batch_size: int = 2) -> ConversationStore:
    return ConversationStore(db, StoreConfig(window_tokens=budget, batch_size=batch_size), clock=lambda: T0)


def exchange(i: int, tokens: int = 10, tool: bool = False) -> list[NewMessage]:
    at = T0 + timedelta(minutes=i)
    out = [NewMessage(Kind.USER, f"request {i}\nmore", tokens=tokens, created_at=at)]
    if tool:
        out += [
            NewMessage(
                Kind.TOOL_CALL,
                "",
                tool_call_id=f"c{i}",
                name="bash",
                input={"cmd": "ls"},
                tokens=tokens,
                created_at=at,
            ),
            NewMessage(Kind.TOOL_RESULT, "files", tool_call_id=f"c{i}", tokens=tokens, created_at=at),
        ]
    out.append(NewMessage(Kind.ASSISTANT, f"answer {i}", tokens=tokens, created_at=at))
    return out


def conversation(n: int, tokens: int = 10, tool: bool = True) -> list[NewMessage]:
    return [NewMessage(Kind.SYSTEM, "be brief", tokens=5, created_at=T0)] + [
        m for i in range(1, n + 1) for m in exchange(i, tokens, tool)
    ]


def count(db: Database, table: object) -> int:
    with db.read() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())  # type: ignore[arg-type]


def test_eviction_marks_the_exchange_and_all_its_messages_and_deletes_nothing(db: Database) -> None:
    store = store_for(db, budget=100)
    store.record("a", conversation(5))  # 5 exchanges x 40 tokens + 5 preamble
    with db.read() as conn:
        rows = conn.execute(select(messages).order_by(messages.c.seq)).mappings().all()
        ex = conn.execute(select(exchanges).order_by(exchanges.c.id)).mappings().all()
    assert len(rows) == 1 + 5 * 4
    evicted_ids = {e["id"] for e in ex if e["evicted_at"] is not None}
    assert evicted_ids == {1, 2, 3}
    for e in ex:
        assert (e["evict_reason"] == "budget") == (e["id"] in evicted_ids)
    with db.read() as conn:
        window_start = conn.execute(select(agents.c.window_start).where(agents.c.id == "a")).scalar_one()
        window = load_window_messages(conn, "a")
        evicted_messages = [m for x in sorted(evicted_ids) for m in load_exchange_messages(conn, "a", x)]
    assert window_start == 4  # in the window: the preamble and exchanges 4 and 5, nothing else
    assert [m.seq for m in window] == [r["seq"] for r in rows if r["exchange_id"] not in evicted_ids]
    assert [m.seq for m in evicted_messages] == [r["seq"] for r in rows if r["exchange_id"] in evicted_ids]
    assert all(m.in_window for m in window)
    assert not any(m.in_window for m in evicted_messages)


def test_window_tokens_are_preamble_plus_in_window_exchanges(db: Database) -> None:
    store = store_for(db, budget=100)
    report = store.record("a", conversation(5))
    assert report.agents["a"].window_tokens == 5 + 2 * 40
    with db.read() as conn:
        window = load_window_messages(conn, "a")
    assert window[0].kind is Kind.SYSTEM
    assert sum(m.tokens for m in window) == 85


def test_eviction_spans_batches_and_uses_stored_exchange_totals(db: Database) -> None:
    store = store_for(db, budget=100)
    msgs = conversation(6)
    for m in msgs:  # one message per call: the running totals carry everything between calls
        store.record("a", [m])
    with db.read() as conn:
        view = load_history(conn, "a", 100)
    assert view is not None
    assert [e.state for e in view.exchanges] == ["evicted"] * 4 + ["window"] * 2
    assert view.window_tokens == 85


def test_preamble_is_never_evicted(db: Database) -> None:
    store = store_for(db, budget=10)
    store.record("a", conversation(3))
    with db.read() as conn:
        window = load_window_messages(conn, "a")
    assert window[0].kind is Kind.SYSTEM
    assert {m.exchange_id for m in window[1:]} == {3}


def test_clear_evicts_with_reason_clear(db: Database) -> None:
    store = store_for(db, budget=0)
    store.record("a", conversation(2))
    store.record(
        "a",
        [
            NewMessage(Kind.COMMAND, "/clear", created_at=T0 + timedelta(hours=1)),
            NewMessage(Kind.CLEAR, "", created_at=T0 + timedelta(hours=1)),
        ],
    )
    with db.read() as conn:
        view = load_history(conn, "a", 0)
        window = load_window_messages(conn, "a")
    assert view is not None
    assert [(e.state, e.evict_reason) for e in view.exchanges] == [("evicted", "clear")] * 2
    assert [m.kind for m in window] == [Kind.SYSTEM]


def test_queue_row_upserted_once_batch_size_exchanges_are_evicted(db: Database) -> None:
    store = store_for(db, budget=100, batch_size=3)
    report = store.record("a", conversation(4))  # evicts 2 < 3
    assert not report.agents["a"].queued
    assert count(db, summary_update_queue) == 0
    report = store.record("a", exchange(5, tool=True) + exchange(6, tool=True))  # evicts 2 more: 4 >= 3
    assert report.queued_agents == ["a"]
    store.record("a", exchange(7, tool=True) + exchange(8, tool=True))
    with db.read() as conn:
        rows = conn.execute(select(summary_update_queue)).mappings().all()
    assert len(rows) == 1  # one row per agent, ever
    assert rows[0]["state"] == "pending"


def test_agents_below_batch_size_are_found_once_they_waited_past_max_wait(db: Database) -> None:
    store = store_for(db, budget=100, batch_size=5)
    store.record("slow", conversation(4))  # 2 evicted, below the batch size
    store.record("none", conversation(1))  # nothing evicted
    with db.read() as conn:
        assert agents_waiting_past(conn, cutoff=T0 - timedelta(seconds=1), batch_size=5) == []
        assert agents_waiting_past(conn, cutoff=T0 + timedelta(seconds=1), batch_size=5) == ["slow"]


def test_bad_message_in_a_batch_stores_nothing(db: Database) -> None:
    store = store_for(db, budget=100, batch_size=1)
    store.record("a", conversation(1))
    before = (count(db, messages), count(db, exchanges))
    bad = [
        *exchange(2),
        *exchange(3),
        NewMessage(Kind.TOOL_RESULT, "x", tool_call_id="nope", where="f.jsonl:9"),
    ]
    with pytest.raises(InvalidMessage, match=r"^f\.jsonl:9: tool_result"):
        store.record_many([("a", m) for m in exchange(2) + exchange(3)] + [("b", m) for m in bad])
    assert (count(db, messages), count(db, exchanges)) == before
    assert count(db, summary_update_queue) == 0
    with db.read() as conn:
        assert conn.execute(select(agents.c.next_message_seq).where(agents.c.id == "a")).scalar_one() == 6


def test_resent_host_id_is_skipped_and_changed_content_is_an_error(db: Database) -> None:
    store = store_for(db)
    first = NewMessage(Kind.USER, "hello", host_id="m1", created_at=T0)
    assert store.record("a", [first]).agents["a"].stored == 1
    report = store.record("a", [first, NewMessage(Kind.ASSISTANT, "hi", host_id="m2", created_at=T0)])
    assert (report.agents["a"].stored, report.agents["a"].skipped) == (1, 1)
    with pytest.raises(InvalidMessage, match=r"'m1' is already stored .* with different content"):
        store.record("a", [NewMessage(Kind.USER, "HELLO", host_id="m1", created_at=T0)])
    assert count(db, messages) == 2


def test_same_host_id_is_independent_per_agent(db: Database) -> None:
    store = store_for(db)
    store.record("a", [NewMessage(Kind.USER, "hello", host_id="m1", created_at=T0)])
    report = store.record("b", [NewMessage(Kind.USER, "other", host_id="m1", created_at=T0)])
    assert report.agents["b"].stored == 1


def test_per_agent_budget_override_and_fork_inherits_it(db: Database) -> None:
    store = store_for(db, budget=1000)
    store.create_agent("parent", budget=50)
    store.create_agent("child", parent="parent")
    store.record("child", conversation(4))
    with db.read() as conn:
        view = load_history(conn, "child", 1000)
        parent_of = conn.execute(select(agents.c.parent_id).where(agents.c.id == "child")).scalar_one()
    assert view is not None
    assert view.budget_tokens == 50
    assert view.window_tokens <= 50
    assert parent_of == "parent"
    with pytest.raises(UnknownAgent):
        store.create_agent("orphan", parent="missing")


def test_budget_zero_disables_eviction(db: Database) -> None:
    store = store_for(db, budget=0)
    store.record("a", conversation(20, tokens=1000))
    with db.read() as conn:
        view = load_history(conn, "a", 0)
    assert view is not None
    assert all(e.state == "window" for e in view.exchanges)


def test_default_created_at_never_goes_backwards(db: Database) -> None:
    store = store_for(db)  # its clock says T0
    store.record("a", [NewMessage(Kind.USER, "from the future", created_at=T0 + timedelta(days=1))])
    store.record("a", [NewMessage(Kind.ASSISTANT, "no timestamp given")])
    with db.read() as conn:
        times = [m.created_at for m in load_window_messages(conn, "a")]
    assert times == [T0 + timedelta(days=1)] * 2


def test_recording_cost_does_not_depend_on_history_length(db: Database) -> None:
    """Same statements for one exchange whether the agent has 5 or 300 exchanges behind it."""
    store = store_for(db, budget=100)
    store.record("short", conversation(5))
    store.record("long", conversation(300))
    statements: list[str] = []

    def count_statement(*args: object) -> None:
        statements.append(str(args[2]))

    event.listen(db.engine, "before_cursor_execute", count_statement)
    try:
        store.record("short", exchange(1000, tool=True))
        short = len(statements)
        statements.clear()
        store.record("long", exchange(1000, tool=True))
        long = len(statements)
    finally:
        event.remove(db.engine, "before_cursor_execute", count_statement)
    assert long == short


def test_big_batches_store_the_same_values_as_small_ones(db: Database) -> None:
    """Large batches take the bulk path (COPY on PostgreSQL): every field must read back unchanged."""
    store = store_for(db, budget=0)
    odd_input = {"path": "src/é.py", "lines": [1, 2], "nested": {"ok": True, "none": None}}
    batch = []
    for i in range(150):
        at = T0 + timedelta(seconds=i)
        batch += [
            NewMessage(Kind.USER, f"ünïcode 🚀 {i}\ttab", host_id=f"h{i}", created_at=at),
            NewMessage(Kind.TOOL_CALL, "", tool_call_id=f"c{i}", name="edit", input=odd_input, created_at=at),
            NewMessage(Kind.TOOL_RESULT, "", tool_call_id=f"c{i}", is_error=i % 2 == 0, created_at=at),
        ]
    store.record("big", batch)
    with db.read() as conn:
        window = load_window_messages(conn, "big")
    assert len(window) == 450
    assert [m.content for m in window[::3]] == [f"ünïcode 🚀 {i}\ttab" for i in range(150)]
    assert all(m.input == odd_input for m in window[1::3])
    assert [m.is_error for m in window[2::3]] == [i % 2 == 0 for i in range(150)]
    assert window[-1].created_at == T0 + timedelta(seconds=149)
    assert window[0].host_id == "h0"


def test_record_in_the_callers_transaction_commits_and_rolls_back_with_it(db: Database) -> None:
    store = store_for(db, budget=100)
    with db.write() as conn:
        store.record_in(conn, [("host", m) for m in conversation(2)])
        assert count(db, messages) == 0  # not visible to other connections before the commit
    assert count(db, messages) == 9

    class HostFailure(Exception):
        pass

    def host_transaction() -> None:
        with db.write() as conn:
            store.record_in(conn, [("host", m) for m in exchange(10)])
            raise HostFailure("the host's own write failed after ours")

    with pytest.raises(HostFailure):
        host_transaction()
    assert count(db, messages) == 9  # ours went with it


def test_eviction_rewrites_no_message_row(db: Database) -> None:
    """Whether a message is in the window follows from its exchange: evicting writes exchange rows only
    (rewriting each message would cost a second heap tuple and second index entries, the search's too)."""
    store = store_for(db, budget=100)
    store.record("a", conversation(2))
    statements: list[str] = []

    def seen(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        statements.append(" ".join(statement.split()).upper())

    event.listen(db.engine, "before_cursor_execute", seen)
    try:
        report = store.record("a", [m for i in range(3, 7) for m in exchange(i, tokens=10, tool=True)])
    finally:
        event.remove(db.engine, "before_cursor_execute", seen)
    assert report.agents["a"].evicted_exchanges > 0
    assert any(s.startswith("UPDATE EXCHANGES") for s in statements)
    assert not [s for s in statements if s.startswith("UPDATE MESSAGES")]


def _indexed(db: Database) -> list[tuple[str, int]]:
    """(agent, seq) of every search row (SQLite's rows hold the agent as the hex of its id and a 0)."""
    with db.read() as conn:
        if db.engine.dialect.name == "sqlite":
            words = conn.execute(text("SELECT agent, seq FROM message_search"))
            return sorted((bytes.fromhex(word[:-1]).decode(), seq) for word, seq in words)
        rows = conn.execute(text("SELECT agent_id, seq FROM messages WHERE search_document IS NOT NULL"))
        return sorted((agent, seq) for agent, seq in rows)


def test_each_recorded_message_has_one_search_row(db: Database) -> None:
    """SQLite's FTS5 rows are written by the recording statement per batch (no trigger): exactly one per
    message, across agents, batches and messages skipped as already stored, and an agent deleted (by an
    operator, in SQL) takes its rows along. PostgreSQL's is a column."""
    store = store_for(db, budget=100)
    store.record_many([("a", m) for m in conversation(3)] + [("b", m) for m in conversation(2)])
    store.record("a", [NewMessage(Kind.USER, "again", host_id="h1", created_at=T0 + timedelta(hours=1))])
    store.record("a", [NewMessage(Kind.USER, "again", host_id="h1", created_at=T0 + timedelta(hours=1))])
    with db.read() as conn:
        stored = [tuple(r) for r in conn.execute(select(messages.c.agent_id, messages.c.seq)).all()]
    assert len(stored) == 4 * 3 + 1 + 4 * 2 + 1 + 1
    assert _indexed(db) == sorted(stored)
    with db.write() as conn:
        conn.execute(agents.delete().where(agents.c.id == "b"))
    assert _indexed(db) == sorted(r for r in stored if r[0] == "a")
    store.record("b", conversation(1))  # a new agent of the same name starts afresh
    assert [seq for agent, seq in _indexed(db) if agent == "b"] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("count", [1, 60])  # 60: from 50 rows PostgreSQL inserts by COPY
def test_a_message_without_tool_input_stores_sql_null_and_is_not_found_by_null(
    db: Database, count: int
) -> None:
    store = store_for(db, budget=0)
    store.record("a", [NewMessage(Kind.USER, f"hello {i}", created_at=T0) for i in range(count)])
    store.record("a", [NewMessage(Kind.ASSISTANT, "the user id was null", created_at=T0)])
    with db.read() as conn:
        inputs = conn.execute(select(messages.c.input).where(messages.c.input.is_not(None))).all()
    assert inputs == []
    page = Recall(SqlRecallStore(db)).search("a", "null")
    assert [h.exchange_id for h in page.hits] == [count]  # the exchange the answer closes, no other
    assert page.total == 1


def test_recall_keeps_to_the_asking_agent_whatever_its_id(db: Database) -> None:
    """Ids that are prefixes of each other, differ by a character FTS5 would split on, or hold quotes and
    letters beyond ASCII: each agent finds its own message only."""
    ids = ["x", "x/2", "x-2", 'üñï "q"', "X"]
    store = store_for(db, budget=0)
    store.record_many(
        [(agent, NewMessage(Kind.USER, f"deploy plan {n}", created_at=T0)) for n, agent in enumerate(ids)]
    )
    recall = Recall(SqlRecallStore(db))
    for n, agent in enumerate(ids):
        page = recall.search(agent, "deploy plan")
        assert [h.snippets[0].text for h in page.hits] == [f"deploy plan {n}"], agent
