"""`summarizer stats` and `summarizer alerts` as an operator runs them, against an SQLite file."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner
from structlog.testing import capture_logs

from summarizer.alerting.service import UnknownAlert
from summarizer.cli.main import cli
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.writers.summaries import record_run
from summarizer.storage.values import RunRecord
from tests.acceptance.cli import run_cli
from tests.support.fake_webhook import fake_webhook
from tests.support.rows import insert_queued_agent

SEED_KEYS = {
    "updates_queued",
    "updates_completed",
    "updates_failed",
    "failure_rate",
    "avg_duration_ms",
    "avg_summary_tokens",
    "queue_depth",
    "llm_input_tokens",
    "llm_output_tokens",
    "truncations",
}


def seed(url: str) -> None:
    """Three runs an hour ago (two fine, one failed) and one agent waiting in the queue."""
    now = datetime.now(UTC)
    db = connect_database(url)
    try:
        with db.write() as conn:
            for n, outcome in enumerate(["ok", "ok", "retry"]):
                finished = now - timedelta(minutes=60 - n)
                record_run(
                    conn,
                    RunRecord(
                        agent_id="bot",
                        started_at=finished - timedelta(seconds=4),
                        finished_at=finished,
                        outcome=outcome,
                        path="append" if outcome == "ok" else None,
                        llm_input_tokens=1_000,
                        llm_output_tokens=100 if outcome == "ok" else 0,
                        summary_tokens=7_800 if outcome == "ok" else None,
                    ),
                )
            insert_queued_agent(conn, "bot", state="pending", now=now)
    finally:
        db.dispose()


def test_stats_and_alerts_from_the_command_line(tmp_path: Path) -> None:
    url = f"sqlite:///{(tmp_path / 's.db').as_posix()}"
    env = {"SUMMARIZER_DATABASE_URL": url, "SUMMARIZER_DATA_DIR": str(tmp_path / "data")}
    assert run_cli("db", "upgrade", env=env).returncode == 0
    seed(url)

    stats = run_cli("stats", "--json", "--since", "2h", env=env)
    assert stats.returncode == 0, stats.stderr
    doc = json.loads(stats.stdout)
    assert set(doc) >= SEED_KEYS
    assert (doc["updates_completed"], doc["updates_failed"], doc["updates_queued"], doc["queue_depth"]) == (
        2,
        1,
        1,
        1,
    )
    assert doc["avg_duration_ms"] == 4_000
    assert doc["avg_summary_tokens"] == 7_800
    assert doc["paths"] == {"append": 2}
    assert doc["window"]["label"] == "2h"

    # In-process from here on (the same command objects and environment) where a subprocess would add
    # nothing but seconds of start-up; `alerts --json` at the end runs for real again.
    runner = CliRunner()
    with fake_webhook() as hook:
        alerting = {**env, "SUMMARIZER_ALERT_QUEUE_DEPTH": "0", "SUMMARIZER_ALERT_WEBHOOK_URL": hook.url}
        with capture_logs() as logs:  # no `main()` here to send log lines to stderr: keep stdout JSON
            check = runner.invoke(cli, ["alerts", "check", "--json"], env=alerting)
        assert "alert.raised" in [e["event"] for e in logs]
        assert check.exit_code == 0, check.output
        report = json.loads(check.output)
        assert report["raised"] == ["queue_depth_high"]
        assert report["rules"]["failure_rate_high"] == "unknown"  # 3 runs: below the 20-run sample
        (post,) = hook.wait_for(1)
    assert "queue_depth_high" in post["text"]
    alert_id = report["deliveries"][0]["alert_id"]

    acked = runner.invoke(cli, ["alerts", "ack", str(alert_id)], env=env)
    assert acked.exit_code == 0, acked.output
    assert f"alert #{alert_id} (queue_depth_high) acknowledged" in acked.output
    unknown = runner.invoke(cli, ["alerts", "ack", "999"], env=env)
    assert isinstance(unknown.exception, UnknownAlert)
    text = runner.invoke(cli, ["alerts"], env=env)
    assert f"#{alert_id}" in text.output
    assert "[acknowledged]" in text.output
    assert "delivery: log sent, webhook sent" in text.output
    dashboard = runner.invoke(cli, ["stats", "--since", "2h"], env=env)
    assert dashboard.output.splitlines()[:5] == [
        "Summary Updates (last 2h):",
        "  Completed: 2",
        "  Failed: 1 (33.3%)",
        "  Avg duration: 4.0s",
        "  Avg size: 7.8k/10k tokens",
    ]

    listed = run_cli("alerts", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    (alert,) = json.loads(listed.stdout)
    assert (alert["id"], alert["kind"], alert["open"]) == (alert_id, "queue_depth_high", True)
    assert alert["acknowledged_at"] is not None
    assert alert["delivery"]["webhook"]["status"] == "sent"
