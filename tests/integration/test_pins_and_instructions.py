"""Pins, the "Now" pin and summary instructions on both databases, through the real store and update
service (the fake model and the offline summarizer answer)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, text

from summarizer.composition import build_sql_store
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.engine.cap import estimate_text
from summarizer.engine.model import NOW_PIN
from summarizer.engine.now_item import TODO_TOOLS
from summarizer.engine.pins import PinLimits
from summarizer.engine.ports import LLMAnswer, LLMRequest
from summarizer.engine.prompt import OPERATOR_LEAD
from summarizer.engine.render import render_summary
from summarizer.llm.fake import FakeLLM, default_answer
from summarizer.service.provenance import Provenance
from summarizer.service.results import Outcome, WorkerConfig
from summarizer.service.steering import InstructionsRefused, PinRefused, Steering, UnknownPin
from summarizer.service.update import UpdateService
from summarizer.storage.sql import migrations
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import TODO_CALLS, messages
from tests.support.services import empty_database
from tests.support.workload import fake_engine, feed, make_store

CONFIG = WorkerConfig(batch_size=1, batch_max_wait=0, follow_on_seconds=0)


def steering(db: Database, max_tokens: int = 10_000) -> Steering:
    return Steering(build_sql_store(db), PinLimits(max_tokens, 0.25), estimate_text)


def pin_names(db: Database, agent_id: str) -> list[str]:
    summary = build_sql_store(db).load_summary(agent_id)
    assert summary is not None
    return [p.name for p in summary.pins]


def test_pin_and_unpin_are_versions_that_diff_and_rollback_see(db: Database) -> None:
    store = make_store(db, batch_size=1)
    feed(store, "a", 4)
    UpdateService(build_sql_store(db), fake_engine(), CONFIG).drain("a")
    pins = steering(db)
    text = "Deploy only from the `release` branch.\n  (spacing kept)  "
    made = pins.pin("a", text, name="deploy", by="cli:ana")
    assert (made.name, made.text, made.pinned_by) == ("deploy", text, "cli:ana")
    pins.pin("a", "Second thing.")
    assert [p.name for p in pins.pins("a")] == ["deploy", "pin-1"]
    pins.unpin("a", "pin-1", by="cli:ana")
    provenance = Provenance(build_sql_store(db))
    kept = provenance.versions("a")
    assert [v.made_by for v in kept[-3:]] == ["pin", "pin", "unpin"]
    pinned, unpinned = kept[-3].summary.version, kept[-1].summary.version
    diff = provenance.diff("a", pinned - 1, pinned)
    assert [p.name for p in diff.pinned] == ["deploy"]
    assert not diff.added
    assert not diff.removed
    assert [p.name for p in provenance.diff("a", unpinned - 1, unpinned).unpinned] == ["pin-1"]
    provenance.rollback("a", pinned - 1)
    assert pins.pins("a") == ()
    provenance.rollback("a", pinned)
    assert [p.text for p in pins.pins("a")] == [text]
    assert render_summary(build_sql_store(db).load_summary("a"), datetime.now(UTC)).startswith(
        f"## Pinned (kept word for word)\n\n### deploy\n{text}"
    )
    with pytest.raises(UnknownPin, match="has no pin 'nope'"):
        pins.unpin("a", "nope")


def test_a_pin_past_the_share_is_refused_saying_how_much_room_is_left(db: Database) -> None:
    make_store(db).create_agent("a")
    pins = steering(db, max_tokens=1_000)  # 250 tokens for pins
    pins.pin("a", "x" * 600, name="big")
    before = build_sql_store(db).load_summary("a")
    room = pins.room("a")
    assert 0 < room < 250
    with pytest.raises(PinRefused, match=rf"{room} token\(s\) are left for pins"):
        pins.pin("a", "y" * 1_000)
    assert build_sql_store(db).load_summary("a") == before  # nothing written
    with pytest.raises(PinRefused, match="kept for the pin every update refreshes"):
        pins.pin("a", "mine", name="now")


def test_a_pin_made_during_an_update_is_never_lost(db: Database) -> None:
    store = make_store(db, batch_size=1)
    feed(store, "a", 3)
    pins = steering(db)

    def pin_meanwhile(request: LLMRequest) -> LLMAnswer:
        pins.pin("a", "Made while the model was thinking.", name="race")
        return default_answer(request)

    service = UpdateService(build_sql_store(db), fake_engine(FakeLLM([pin_meanwhile])), CONFIG)
    assert service.run("a").outcome is Outcome.STALE  # its summary moved: the result is discarded
    service.drain("a")
    summary = build_sql_store(db).load_summary("a")
    assert summary is not None
    assert summary.items
    assert [p.text for p in summary.pins] == ["Made while the model was thinking."]


def _todo_call(call: str, steps: list[tuple[str, str]], at: datetime) -> list[NewMessage]:
    todos = [{"content": text, "status": status, "activeForm": text} for text, status in steps]
    return [
        NewMessage(
            Kind.TOOL_CALL, "", tool_call_id=call, name="TodoWrite", input={"todos": todos}, created_at=at
        ),
        NewMessage(Kind.TOOL_RESULT, "Todos updated", tool_call_id=call, created_at=at),
    ]


def test_the_now_pin_is_the_latest_request_and_open_todos_after_every_update(db: Database) -> None:
    store = make_store(db, batch_size=1)
    service = UpdateService(build_sql_store(db), fake_engine(), CONFIG)
    start = datetime.now(UTC) - timedelta(hours=1)
    checked = 0
    for n in range(1, 7):
        at = start + timedelta(minutes=n)
        request = f"Step {n}: please  do part {n}.\nKeep it small."
        steps = [
            (f"part {k}", "completed" if k < n else "in_progress" if k == n else "pending")
            for k in range(1, 8)
        ]
        store.record(
            "coder",
            [
                NewMessage(Kind.USER, request, tokens=10, created_at=at),
                NewMessage(Kind.ASSISTANT, f"Working on part {n}.", tokens=5, created_at=at),
                *_todo_call(f"t{n}", steps, at),
            ],
        )
        service.drain("coder")
        summary = build_sql_store(db).load_summary("coder")
        if summary is None:  # nothing evicted yet: no update has run
            continue
        now_pin = summary.pin(NOW_PIN)
        assert now_pin is not None
        checked += 1
        open_lines = "\n".join(f"- [{status}] {text}" for text, status in steps if status != "completed")
        stamp = at.strftime("%Y-%m-%d %H:%M UTC")
        assert now_pin.text == (
            f"Latest request ({stamp}):\n{request}\n\nOpen todos (TodoWrite, {stamp}):\n{open_lines}"
        )
    assert checked >= 4  # an update ran (and was checked) after most of the requests


def test_an_agent_turned_off_gets_no_now_pin_and_loses_the_one_it_had(db: Database) -> None:
    store = make_store(db, batch_size=1)
    service = UpdateService(build_sql_store(db), fake_engine(), CONFIG)
    at = datetime.now(UTC) - timedelta(minutes=30)
    for n in range(1, 5):
        store.record(
            "coder",
            [
                NewMessage(Kind.USER, f"Do {n}.", tokens=20, created_at=at),
                *_todo_call(f"t{n}", [("x", "pending")], at),
            ],
        )
    service.drain("coder")
    assert NOW_PIN in pin_names(db, "coder")
    steering(db).set_now_item("coder", False)
    feed(store, "coder", 3, start=10)
    service.drain("coder")
    assert NOW_PIN not in pin_names(db, "coder")
    feed(store, "plain", 5)  # no todo list: "auto" adds no Now pin
    service.drain("plain")
    assert pin_names(db, "plain") == []


def test_instructions_reach_the_models_prompt_and_a_fork_inherits_them(db: Database) -> None:
    store = make_store(db, batch_size=1)
    store.create_agent("a")
    words = "Keep decisions with their reasons, file paths and open questions."
    control = steering(db)
    control.set_instructions("a", words)
    store.create_agent("a/fork", parent="a")
    assert control.steering("a/fork").instructions == words
    for agent, expected in (("a", True), ("b", False)):
        llm = FakeLLM()
        feed(store, agent, 4)
        UpdateService(build_sql_store(db), fake_engine(llm), CONFIG).drain(agent)
        assert llm.requests
        assert all((OPERATOR_LEAD in r.user_text) is expected for r in llm.requests)
        assert all((words in r.user_text) is expected for r in llm.requests)
    with pytest.raises(InstructionsRefused, match="at most 2,000 characters; these have 2,001"):
        control.set_instructions("a", "w" * 2_001)
    control.set_instructions("a", None)
    assert control.steering("a").instructions is None


def test_the_newest_todo_call_is_one_probe_of_its_partial_index(db: Database) -> None:
    assert set(re.findall(r"'(\w+)'", TODO_CALLS)) - {"tool_call"} == set(TODO_TOOLS)
    store = make_store(db, batch_size=1)
    at = datetime.now(UTC) - timedelta(minutes=5)
    store.record(
        "a",
        [
            NewMessage(Kind.USER, "Plan it.", tokens=5, created_at=at),
            *_todo_call("t1", [("x", "pending")], at),
        ],
    )
    query = (
        select(messages)
        .where(messages.c.agent_id == "a", text(TODO_CALLS))
        .order_by(messages.c.seq.desc())
        .limit(1)
    )
    with db.read() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SET LOCAL enable_seqscan = off"))
            explain = "EXPLAIN "
        else:
            explain = "EXPLAIN QUERY PLAN "
        compiled = query.compile(conn, compile_kwargs={"literal_binds": True})
        plan = " ".join(str(row) for row in conn.execute(text(explain + str(compiled))))
        assert "ix_messages_todo_calls" in plan
        assert build_sql_store(db).latest_task("a").todos is not None


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    yield from empty_database(request.param, tmp_path, "summarizer_pins_migration")


def test_downgrading_0016_takes_the_pins_out_and_keeps_the_items(empty_db: Database) -> None:
    migrations.upgrade(empty_db)
    feed(make_store(empty_db, batch_size=1), "a", 5)
    UpdateService(build_sql_store(empty_db), fake_engine(), CONFIG).drain("a")
    steering(empty_db).pin("a", "Kept word for word.", name="k")
    before = build_sql_store(empty_db).load_summary("a")
    assert before is not None
    assert before.items
    migrations.downgrade(empty_db, "0015")
    with empty_db.read() as conn:
        stored = [
            json.loads(row[0]) if isinstance(row[0], str) else row[0]
            for table in ("summaries", "summary_versions")
            for row in conn.execute(text(f"SELECT items FROM {table}"))
        ]
    assert stored
    assert all("pin" not in entry for entries in stored for entry in entries)
    assert [e["id"] for e in stored[0]] == [i.id for i in before.items]
    migrations.upgrade(empty_db)
    after = build_sql_store(empty_db).load_summary("a")
    assert after is not None
    assert (after.items, after.pins) == (before.items, ())
