"""Migration 0007 masks secrets that earlier versions stored in error texts and alerts."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from summarizer.storage.sql import migrations
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import agents

CONFIGURED = "plainkey" + "7" * 24  # shaped like no credential: only the configured value gives it away
NOW = datetime(2026, 11, 1, tzinfo=UTC)


def test_stored_secrets_are_masked_by_the_upgrade(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", CONFIGURED)
    migrations.downgrade(db, "0006")
    error = f"HTTP 401: invalid x-api-key: {CONFIGURED}; retried with gsk_abcdefghijklmnop1234"
    with db.write() as conn:
        conn.execute(
            agents.insert().values(
                id="a",
                created_at=NOW,
                preamble_tokens=0,
                window_tokens=0,
                next_message_seq=1,
                last_exchange=0,
                window_start=1,
                current_complete=True,
                current_tool_calls=[],
                unsummarized=0,
            )
        )
        conn.execute(
            text(
                "INSERT INTO summary_update_queue (agent_id, state, priority, queued_at, available_at, attempts,"
                " consecutive_failures, dirty, last_error, updated_at)"
                " VALUES ('a', 'failed', 0, :now, :now, 1, 1, false, :error, :now)"
            ),
            {"now": NOW, "error": error},
        )
        conn.execute(
            text(
                "INSERT INTO summary_runs (agent_id, started_at, finished_at, duration_ms, exchange_count,"
                " llm_input_tokens, llm_output_tokens, truncated, outcome, error)"
                " VALUES ('a', :now, :now, 5, 0, 0, 0, false, 'parked', :error)"
            ),
            {"now": NOW, "error": error},
        )
        conn.execute(
            text(
                "INSERT INTO alerts (kind, agent_id, severity, message, details, created_at, delivery)"
                " VALUES ('summary_updates_failing', 'a', 'critical', :error, :details, :now, '{}')"
            ),
            {"now": NOW, "error": error, "details": json.dumps({"error": error, "failures": 1})},
        )
    migrations.upgrade(db)
    with db.read() as conn:
        stored = [
            conn.execute(text("SELECT last_error FROM summary_update_queue")).scalar_one(),
            conn.execute(text("SELECT error FROM summary_runs")).scalar_one(),
            conn.execute(text("SELECT message FROM alerts")).scalar_one(),
            str(conn.execute(text("SELECT details FROM alerts")).scalar_one()),
        ]
    for value in stored:
        assert "invalid x-api-key" in value
        assert CONFIGURED not in value
        assert "gsk_abcdefghijklmnop1234" not in value
    assert '"failures": 1' in stored[3].replace("'", '"')
