"""Canonical messages without ids, recorded twice, on both databases: `summarizer ingest` and
`POST /v1/agents/{id}/messages` derive the same ids, so the second time stores nothing new."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from summarizer.cli.main import cli
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from tests.support.http_api import api_client, canonical, hermetic_settings

AGENT = "team-a/no-ids"


def deploy(call_id: str, env: str) -> list[dict[str, Any]]:
    return [
        canonical("tool_call", "", tool_call_id=call_id, name="deploy", input={"env": env}),
        canonical("tool_result", "ok", tool_call_id=call_id),
    ]


def id_less_conversation() -> list[dict[str, Any]]:
    """A tool-using conversation with repeated texts and no ids at all."""
    return [
        canonical("system", "You are a release bot."),
        canonical("user", "yes"),
        *deploy("c1", "staging"),
        canonical("assistant", "Deployed to staging."),
        canonical("user", "yes"),
        *deploy("c2", "prod"),
        canonical("assistant", "Deployed to prod."),
    ]


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    url = db.url.render_as_string(hide_password=False)
    wired = hermetic_settings(monkeypatch, tmp_path, database_url=url)
    monkeypatch.setenv("SUMMARIZER_DATABASE_URL", url)
    monkeypatch.setenv("SUMMARIZER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SUMMARIZER_LLM", "fake")
    return wired


def ingest(path: Path) -> tuple[int, int]:
    result = CliRunner().invoke(cli, ["ingest", str(path), "--agent", AGENT], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    counts = re.search(r"stored (\d+) message\(s\), skipped (\d+)", result.output)
    assert counts, result.output
    return int(counts[1]), int(counts[2])


def stored_host_ids(settings: Settings, db: Database) -> list[str]:
    context = api_client(db, settings).get(f"/v1/agents/{AGENT}/context").json()
    return [m["host_id"] for m in context["messages"]]


def test_the_same_id_less_file_ingested_twice_stores_nothing_new(
    settings: Settings, db: Database, tmp_path: Path
) -> None:
    source = tmp_path / "no-ids.jsonl"
    source.write_text("".join(json.dumps(m) + "\n" for m in id_less_conversation()))
    assert ingest(source) == (9, 0)
    assert ingest(source) == (0, 9)
    host_ids = stored_host_ids(settings, db)
    assert len(host_ids) == len(set(host_ids)) == 9  # the two "yes" and the two "ok" are kept apart


def test_the_same_id_less_body_posted_twice_stores_nothing_new(settings: Settings, db: Database) -> None:
    client = api_client(db, settings)
    body = {"messages": id_less_conversation()}
    first = client.post(f"/v1/agents/{AGENT}/messages", json=body).json()
    assert (first["stored"], first["skipped"]) == (9, 0)
    again = client.post(f"/v1/agents/{AGENT}/messages", json=body).json()
    assert (again["stored"], again["skipped"]) == (0, 9)
    assert len(set(stored_host_ids(settings, db))) == 9


def test_a_file_ingested_then_posted_is_one_conversation(
    settings: Settings, db: Database, tmp_path: Path
) -> None:
    source = tmp_path / "no-ids.jsonl"
    source.write_text("".join(json.dumps(m) + "\n" for m in id_less_conversation()))
    assert ingest(source) == (9, 0)
    posted = api_client(db, settings).post(
        f"/v1/agents/{AGENT}/messages", json={"messages": id_less_conversation()}
    )
    assert (posted.json()["stored"], posted.json()["skipped"]) == (0, 9)
