"""`summarizer agents` on SQLite and PostgreSQL: each agent with the front end and file it came from, its
counts and state, paged through thousands of agents with one statement per page."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy import insert, text

from summarizer.cli.main import cli
from summarizer.composition import build_summarizer
from summarizer.composition.fleet import build_fleet_view
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.settings import Settings
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.agent_list import page_statement
from summarizer.storage.sql.statements.schema import alerts, summary_update_queue
from tests.acceptance.cli import run_cli
from tests.support.corpora import fixture_path
from tests.support.http_api import SCOPED_TOKEN, api_client, bearer, canonical, cli_settings
from tests.support.services import copy_sqlite_template
from tests.support.statements import counting_statements

START = datetime(2026, 11, 1, tzinfo=UTC)


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    return cli_settings(monkeypatch, tmp_path, db)


def _agents(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["agents", "--json", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.output)
    return doc


def _ok(*args: str, stdin: str | None = None) -> str:
    result = CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.usefixtures("corpora")
def test_each_front_end_names_itself_as_the_agents_source(
    db: Database, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = fixture_path("claude_code/compact_after_rewind.jsonl")
    watched = tmp_path / "projects" / "-home-me-watched"
    watched.mkdir(parents=True)
    shutil.copy(claude, watched / "session.jsonl")
    _ok("watch", str(watched), "--format", "claude-code", "--once")

    hooked = tmp_path / "hooked"
    hooked.mkdir()
    shutil.copy(claude, hooked / "b3c1.jsonl")
    monkeypatch.setenv("SUMMARIZER_HOOK_LOG_FOLDERS", str(hooked))
    event = {
        "hook_event_name": "Stop",
        "session_id": "b3c1",
        "transcript_path": str(hooked / "b3c1.jsonl"),
        "cwd": "/home/me/hooked",
    }
    # A process of its own, as an agent runs it: the hook's deadline ends the process it runs in.
    env = {k: v for k, v in os.environ.items() if k.startswith("SUMMARIZER_")}
    done = run_cli("hook", "claude-code", env=env, stdin=json.dumps(event))
    assert done.returncode == 0, done.stderr

    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"agent": "ingested", "kind": "user", "content": "hello"}) + "\n")
    _ok("ingest", str(chat))
    _ok("agent", "create", "made-by-hand")
    build_summarizer(settings, db).record_message("from-the-api", "user", "hello")

    listed = _agents("--sort", "id", "--limit", "1000")["agents"]
    by_source = {(r["source"]["kind"], r["source"]["path"], r["source"]["format"]): r for r in listed}
    assert set(by_source) == {
        ("watch", str(watched / "session.jsonl"), "claude-code"),
        ("hook", str(hooked / "b3c1.jsonl"), "claude-code"),
        ("ingest", str(chat), "canonical"),
        ("cli", None, None),
        ("api", None, None),
    }
    assert by_source["cli", None, None]["agent_id"] == "made-by-hand"
    assert by_source["api", None, None]["agent_id"] == "from-the-api"
    followed = by_source["watch", str(watched / "session.jsonl"), "claude-code"]
    assert followed["messages"] > 0
    assert followed["exchanges"] > 0
    assert by_source["ingest", str(chat), "canonical"]["messages"] == 1

    shown = _ok("agents", "--sort", "id")
    assert f"{followed['agent_id']} " in shown
    assert "watch claude-code " + str(watched / "session.jsonl") in shown


def test_counts_summary_parked_and_open_alerts(db: Database, settings: Settings) -> None:
    memory = build_summarizer(settings, db)
    for n in range(3):
        memory.record_message("busy", "user", f"question {n}")
        memory.record_message("busy", "assistant", f"answer {n}")
    memory.record_message("quiet", "user", "one")
    now = datetime.now(UTC)
    with db.write() as conn:
        conn.execute(
            insert(summary_update_queue).values(
                agent_id="quiet",
                state="failed",
                priority=0,
                queued_at=now,
                available_at=now,
                attempts=5,
                consecutive_failures=5,
                dirty=False,
                updated_at=now,
            )
        )
        open_alert = {"kind": "k", "severity": "warning", "message": "m", "details": {}, "delivery": {}}
        conn.execute(insert(alerts).values(agent_id="quiet", created_at=now, **open_alert))
        conn.execute(insert(alerts).values(agent_id="quiet", created_at=now, resolved_at=now, **open_alert))
    rows = {r["agent_id"]: r for r in _agents("--sort", "id")["agents"]}
    assert (rows["busy"]["messages"], rows["busy"]["exchanges"]) == (6, 3)
    assert (rows["busy"]["parked"], rows["busy"]["open_alerts"]) == (False, 0)
    assert (rows["quiet"]["parked"], rows["quiet"]["open_alerts"]) == (True, 1)
    assert "parked, 1 alert(s)" in _ok("agents")


def _many_agents(db: Database, settings: Settings, count: int) -> list[str]:
    """`count` agents whose last activity is spread over a month (some share a time, some have none)."""
    ids = [f"agent-{n:05d}" for n in range(count)]
    memory = build_summarizer(settings, db)
    records = [
        (agent, NewMessage(Kind.USER, "hi", created_at=START + timedelta(minutes=n % 700)))
        for n, agent in enumerate(ids)
        if n % 50
    ]
    memory.record_many(records)
    for n in range(0, count, 50):
        memory.create_agent(ids[n])
    with db.write() as conn:  # agents without messages: active when created, spread over the month too
        for n in range(0, count, 50):
            created = START + timedelta(minutes=(n * 7) % 700)
            conn.execute(
                text("UPDATE agents SET created_at = :at WHERE id = :id"), {"at": created, "id": ids[n]}
            )
    return ids


@pytest.mark.parametrize("order", ["activity", "id"])
def test_paging_through_2100_agents_one_statement_a_page(
    db: Database, settings: Settings, order: str
) -> None:
    ids = _many_agents(db, settings, 2_100)
    fleet = build_fleet_view(db)
    seen: list[Any] = []
    after: str | None = None
    pages = 0
    while True:
        with counting_statements(db) as statements:
            page = fleet.agent_page(order=order, after=after, limit=250)  # type: ignore[arg-type]
        assert len([s for s in statements if s.lstrip().upper().startswith("SELECT")]) == 1
        pages += 1
        if not page:
            break
        seen.extend(page)
        after = page[-1].agent_id
    assert pages == 10  # 9 pages of agents (the last short), then the empty one
    assert sorted(r.agent_id for r in seen) == sorted(ids)
    assert len({r.agent_id for r in seen}) == len(ids)
    if order == "id":
        assert [r.agent_id for r in seen] == sorted(ids)
    else:
        keys = [(r.last_activity_at, r.agent_id) for r in seen]
        assert keys == sorted(keys, reverse=True)
        assert len({r.last_activity_at for r in seen}) < len(seen)  # ties are crossed by page boundaries


def test_the_cli_pages_with_the_command_it_prints(db: Database, settings: Settings) -> None:
    _many_agents(db, settings, 120)
    first = _agents("--limit", "100")
    assert len(first["agents"]) == 100
    rest = _agents("--limit", "100", "--after", first["next_after"])
    assert len(rest["agents"]) == 20
    assert rest["next_after"] is None
    assert len(_agents("--all", "--limit", "7")["agents"]) == 120
    shown = _ok("agents", "--limit", "100")
    assert shown.splitlines()[-1] == f"more: summarizer agents --after {first['next_after']} --limit 100"
    refused = CliRunner().invoke(cli, ["agents", "--after", "nobody"])
    assert refused.exit_code == 2
    assert "no agent 'nobody' to continue after" in refused.output


def test_an_agent_created_before_sources_were_recorded_says_so(db: Database, settings: Settings) -> None:
    build_summarizer(settings, db).record_message("old", "user", "hi")
    with db.write() as conn:
        conn.execute(text("UPDATE agents SET source = NULL WHERE id = 'old'"))
    assert _agents()["agents"][0]["source"] == {"kind": None, "path": None, "format": None}
    assert "unrecorded" in _ok("agents")


@pytest.mark.parametrize("after", [None, "agent-00010"])
def test_sqlite_reads_a_page_by_activity_from_the_index(
    tmp_path: Path, sqlite_template: Path, after: str | None
) -> None:
    db = connect_database(copy_sqlite_template(sqlite_template, tmp_path / "plan.db"))
    statement = page_statement(order="activity", after=after, limit=50)
    with db.read() as conn:
        compiled = statement.compile(dialect=conn.dialect)
        params = tuple(compiled.params[name] for name in compiled.positiontup or ())
        plan = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + str(compiled), params).all()
    db.dispose()
    details = [str(row[-1]) for row in plan]
    read = "SCAN agents USING INDEX ix_agents_activity"
    if after is not None:  # a range of the index, not a scan from its end
        read = "SEARCH agents USING INDEX ix_agents_activity (<expr><?)"
    assert read in details, details
    assert sum("TEMP B-TREE" in d for d in details) == 1, details  # only the page's own rows are sorted


def test_a_dashed_id_is_listed_as_it_is_typed(db: Database, settings: Settings) -> None:
    build_summarizer(settings, db).record_message("-home-me-app", "user", "hi")
    shown = _ok("agents").splitlines()
    assert shown[1].startswith("-home-me-app ")
    assert shown[-1] == "ids starting with '-' are typed as shown: summarizer context -home-me-app"
    assert "hi" in _ok(*shown[-1].split(": ", 1)[1].split()[1:])


def test_the_http_api_lists_the_same_pages_to_an_operator(db: Database, settings: Settings) -> None:
    client = api_client(db, settings)
    for n in range(5):
        body = {"messages": [canonical("user", f"hello {n}")]}
        assert client.post(f"/v1/agents/http-{n}/messages", json=body).is_success
    first = client.get("/v1/fleet/agents", params={"sort": "id", "limit": 3}).json()
    assert [r["agent_id"] for r in first["agents"]] == ["http-0", "http-1", "http-2"]
    assert first["agents"][0]["source"] == {"kind": "api", "path": None, "format": None}
    assert first["agents"][0]["messages"] == 1
    rest = client.get("/v1/fleet/agents", params={"sort": "id", "after": first["next_after"]}).json()
    assert ([r["agent_id"] for r in rest["agents"]], rest["next_after"]) == (["http-3", "http-4"], None)
    assert client.get("/v1/fleet/agents").json()["agents"] == _agents("--limit", "100")["agents"]
    scoped = TestClient(client.app, headers=bearer(SCOPED_TOKEN))
    assert scoped.get("/v1/fleet/agents").status_code == 403
    assert client.get("/v1/fleet/agents", params={"sort": "size"}).status_code == 422
