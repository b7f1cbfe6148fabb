"""`summarizer summary` after evictions were summarized: Markdown tiers and the JSON document."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.acceptance.cli import run_cli


def conversation(now: datetime) -> str:
    rows: list[dict[str, object]] = []
    # Two days ago, then an hour ago: after aging, the older exchanges sit in "Yesterday".
    for i, at in enumerate([now - timedelta(days=2)] * 3 + [now - timedelta(hours=1)] * 4):
        stamp = (at + timedelta(seconds=i)).isoformat()
        rows += [
            {
                "agent": "bot",
                "kind": "user",
                "content": f"Implement feature {i} with tests",
                "created_at": stamp,
                "tokens": 30,
            },
            {
                "agent": "bot",
                "kind": "assistant",
                "content": f"Implemented feature {i}; tests pass.",
                "created_at": stamp,
                "tokens": 30,
            },
        ]
    return "".join(json.dumps(r) + "\n" for r in rows)


def test_summary_markdown_and_json_after_drain(tmp_path: Path) -> None:
    env = {
        "SUMMARIZER_DATABASE_URL": f"sqlite:///{(tmp_path / 's.db').as_posix()}",
        "SUMMARIZER_WINDOW_TOKENS": "70",
        "SUMMARIZER_BATCH_SIZE": "2",
        "SUMMARIZER_LLM": "offline",
    }
    now = datetime.now(UTC)
    path = tmp_path / "chat.jsonl"
    path.write_text(conversation(now))
    assert run_cli("db", "upgrade", env=env).returncode == 0
    assert run_cli("ingest", str(path), env=env).returncode == 0
    before = json.loads(run_cli("summary", "bot", "--json", env=env).stdout)
    assert before["version"] is None
    assert before["tiers"] == {"session": [], "yesterday": [], "week": []}
    drained = run_cli("drain", env=env)
    assert drained.returncode == 0, drained.stderr
    doc = json.loads(run_cli("summary", "bot", "--json", env=env).stdout)
    assert doc["agent_id"] == "bot"
    assert doc["version"] >= 1
    assert doc["max_tokens"] == 10_000
    assert doc["covered_through_exchange_id"] == 6  # exchange 7, the newest, stays in the window
    items = doc["tiers"]["session"] + doc["tiers"]["yesterday"] + doc["tiers"]["week"]
    assert sorted(i for item in items for i in item["exchange_ids"]) == [1, 2, 3, 4, 5, 6]
    assert set(items[0]) == {
        "id",
        "text",
        "started_at",
        "ended_at",
        "source_tokens",
        "importance",
        "exchange_ids",
    }
    assert 0 < doc["token_count"] <= 10_000
    markdown = run_cli("summary", "bot", env=env).stdout
    assert markdown.startswith("## Previously in This Session")
    assert "## Yesterday" in markdown  # the engine ages before it adds: two-day-old work is "Yesterday"
    later = run_cli("summary", "bot", "--now", (now + timedelta(days=10)).isoformat(), env=env).stdout
    assert "(10d ago, ~" in later  # relative times are computed at render time, as of --now
    bad = run_cli("summary", "bot", "--now", "yesterday", env=env)
    assert bad.returncode == 2
    assert "expected an ISO-8601 timestamp" in bad.stderr
    missing = run_cli("summary", "nobody", env=env)
    assert missing.returncode == 1
    assert "unknown agent 'nobody'" in missing.stderr
    aged = run_cli("age", "--now", (now + timedelta(days=3)).isoformat(), env=env)
    assert aged.returncode == 0, aged.stderr
    assert aged.stdout.startswith("aged 1 summary(ies)")
    three_days_on = json.loads(run_cli("summary", "bot", "--json", env=env).stdout)["tiers"]
    assert three_days_on["session"] == []
    assert len(three_days_on["yesterday"]) == len(items)
    again = run_cli("age", "--now", (now + timedelta(days=3)).isoformat(), env=env)
    assert again.stdout.startswith("aged 0 summary(ies)")  # idempotent for the same day
    gone = run_cli("age", "--now", (now + timedelta(days=20)).isoformat(), "--agent", "bot", env=env)
    assert f"{len(items)} dropped" in gone.stdout
    assert json.loads(run_cli("summary", "bot", "--json", env=env).stdout)["tiers"]["yesterday"] == []
