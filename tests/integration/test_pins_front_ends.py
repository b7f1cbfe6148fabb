"""Pins and summary instructions through the HTTP API and the CLI, on both databases: the same rules, the
same documents, the pins in every view of the summary (context, summary)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from summarizer.cli.main import cli
from summarizer.service.follow import project_agent_id
from summarizer.service.steering import InstructionsRefused, PinRefused
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from tests.support.http_api import SCOPED_TOKEN, api_client, bearer, cli_settings, exchange, invoke

AGENT = "team-a/coder"
PIN = "Never force-push.\n\tTabs, trailing spaces   and <summary> stay as typed.  "


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    return cli_settings(monkeypatch, tmp_path, db)


def _record(settings: Settings, db: Database, count: int) -> None:
    client = api_client(db, settings)
    messages = [m for n in range(count) for m in exchange(n)]
    assert client.post(f"/v1/agents/{AGENT}/messages", json={"messages": messages}).status_code == 200


def test_http_pins_are_listed_added_refused_and_removed(db: Database, settings: Settings) -> None:
    _record(settings, db, 3)
    client = api_client(db, settings)
    added = client.post(f"/v1/agents/{AGENT}/pins", json={"text": PIN, "name": "rules"})
    assert added.status_code == 201, added.text
    doc = added.json()
    assert [(p["name"], p["text"], p["by"]) for p in doc["pins"]] == [("rules", PIN, "http")]
    scoped = client.post(f"/v1/agents/{AGENT}/pins", json={"text": "mine"}, headers=bearer(SCOPED_TOKEN))
    assert scoped.status_code == 201
    assert scoped.json()["pins"][1]["by"] == "http@team-a/"
    assert (
        client.post("/v1/agents/team-b/x/pins", json={"text": "t"}, headers=bearer(SCOPED_TOKEN)).status_code
        == 403
    )
    too_big = client.post(f"/v1/agents/{AGENT}/pins", json={"text": "z" * 20_000})
    assert too_big.status_code == 422
    assert "left for pins" in too_big.json()["detail"]
    for view in (
        client.get(f"/v1/agents/{AGENT}/context").json()["summary"],
        client.get(f"/v1/agents/{AGENT}/summary").json()["markdown"],
    ):
        assert f"### rules\n{PIN}" in view
    listed = client.get(f"/v1/agents/{AGENT}/pins").json()
    assert [p["name"] for p in listed["pins"]] == ["rules", "pin-1"]
    assert 0 < listed["room_tokens"] < 2_500
    gone = client.delete(f"/v1/agents/{AGENT}/pins", params={"name": "pin-1"})
    assert [p["name"] for p in gone.json()["pins"]] == ["rules"]
    assert client.delete(f"/v1/agents/{AGENT}/pins", params={"name": "pin-1"}).status_code == 404
    assert client.get("/v1/agents/nobody/pins").status_code == 404


def test_http_instructions_are_set_bounded_and_cleared(db: Database, settings: Settings) -> None:
    _record(settings, db, 1)
    client = api_client(db, settings)
    url = f"/v1/agents/{AGENT}/instructions"
    assert client.get(url).json() == {"agent_id": AGENT, "instructions": None, "now_item": None}
    assert client.put(url, json={"text": "Keep file paths."}).json()["instructions"] == "Keep file paths."
    assert client.put(url, json={"text": "x" * 2_001}).status_code == 422
    assert client.get(url).json()["instructions"] == "Keep file paths."
    assert client.delete(url).json()["instructions"] is None


def _run(*args: str) -> None:
    """A command whose error the test expects (`summarizer`'s main turns it into "error: ..." and exit 1)."""
    CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_cli_pin_pins_unpin_and_agent_show(
    db: Database, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    _record(settings, db, 3)
    monkeypatch.setenv("USER", "ana")
    assert "pinned 'rules'" in invoke("pin", AGENT, PIN, "--name", "rules")
    doc: dict[str, Any] = json.loads(invoke("pins", AGENT, "--json"))
    assert [(p["name"], p["text"], p["by"]) for p in doc["pins"]] == [("rules", PIN, "cli:ana")]
    assert f"### rules\n{PIN}" in invoke("summary", AGENT)
    assert f"### rules\n{PIN}" in invoke("context", AGENT)
    with pytest.raises(PinRefused, match=r"token\(s\) are left for pins"):
        _run("pin", AGENT, "y" * 20_000)
    invoke("agent", "instructions", AGENT, "Keep decisions with their reasons.")
    invoke("agent", "now", AGENT, "off")
    show = json.loads(invoke("agent", "show", AGENT, "--json"))
    assert (show["instructions"], show["now_item"], show["pins"]) == (
        "Keep decisions with their reasons.",
        False,
        ["rules"],
    )
    invoke("agent", "create", "team-a/fork", "--parent", AGENT)
    assert json.loads(invoke("agent", "show", "team-a/fork", "--json"))["instructions"] == (
        "Keep decisions with their reasons."
    )
    assert "unpinned 'rules'" in invoke("unpin", AGENT, "rules")
    assert "no pins changed" not in invoke("diff", AGENT, "1", "2")
    with pytest.raises(InstructionsRefused, match="at most 2,000 characters"):
        _run("agent", "instructions", AGENT, "z" * 2_001)


def test_the_session_start_hook_hands_the_agent_its_pins(db: Database, settings: Settings) -> None:
    agent = project_agent_id("pinned-session")
    invoke("agent", "create", agent)
    invoke("pin", agent, PIN, "--name", "rules")
    event = {"hook_event_name": "SessionStart", "session_id": "pinned-session", "source": "startup"}
    result = CliRunner().invoke(
        cli, ["hook", "claude-code", "--per", "session"], input=json.dumps(event), catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    context = json.loads(result.output)["hookSpecificOutput"]["additionalContext"]
    assert f"### rules\n{PIN}" in context


def test_a_credential_in_a_pin_or_in_instructions_is_masked_like_one_in_a_message(
    db: Database, settings: Settings
) -> None:
    _record(settings, db, 1)
    client = api_client(db, settings)
    key = "ghp_" + "Q7wErT9yUi0pAsDfGhJkLzXcVbNm1234abcd"
    pinned = client.post(f"/v1/agents/{AGENT}/pins", json={"text": f"deploy with {key}", "name": "deploy"})
    assert pinned.status_code == 201, pinned.text
    told = client.put(f"/v1/agents/{AGENT}/instructions", json={"text": f"the token is {key}"})
    assert told.status_code == 200, told.text
    views = [
        client.get(f"/v1/agents/{AGENT}/pins").text,
        client.get(f"/v1/agents/{AGENT}/summary").text,
        client.get(f"/v1/agents/{AGENT}/context").text,
        client.get(f"/v1/agents/{AGENT}/instructions").text,
    ]
    assert all(key not in view for view in views)
    assert "[secret:github-token …abcd]" in views[0]
    assert "[secret:github-token …abcd]" in views[3]
