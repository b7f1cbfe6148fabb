"""`stats` and `queue` show the provider breaker; `requeue --all-parked` re-arms every parked agent."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner

from summarizer.cli.main import cli
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.writers.breakers import SqlBreakerStore
from tests.acceptance.cli import run_cli
from tests.support.rows import insert_queued_agent


def test_breaker_state_in_stats_and_queue_and_requeue_all_parked(tmp_path: Path) -> None:
    url = f"sqlite:///{(tmp_path / 's.db').as_posix()}"
    env = {"SUMMARIZER_DATABASE_URL": url, "SUMMARIZER_DATA_DIR": str(tmp_path / "data")}
    assert run_cli("db", "upgrade", env=env).returncode == 0
    now = datetime.now(UTC)
    db = connect_database(url)
    try:
        with db.write() as conn:
            for agent_id in ("p1", "p2", "p3"):
                insert_queued_agent(conn, agent_id, state="failed", now=now)
            insert_queued_agent(conn, "fine", state="idle", now=now)
        SqlBreakerStore(db).open(
            "anthropic",
            fault="auth",
            error="HTTP 401: invalid x-api-key",
            now=now,
            probe_at=now + timedelta(seconds=120),
            backoff=120,
        )
    finally:
        db.dispose()
    runner = CliRunner()

    stats = runner.invoke(cli, ["stats"], env=env)
    assert stats.exit_code == 0, stats.output
    assert "LLM provider anthropic: breaker OPEN (auth)" in stats.output
    assert "next probe in 1" in stats.output  # 120 s away, give or take the run time
    doc = json.loads(runner.invoke(cli, ["stats", "--json"], env=env).output)
    [breaker] = doc["breakers"]
    assert (breaker["provider"], breaker["state"], breaker["fault"]) == ("anthropic", "open", "auth")

    queue = runner.invoke(cli, ["queue"], env=env)
    assert queue.output.splitlines()[0].startswith("LLM provider anthropic: breaker OPEN (auth)")

    both = runner.invoke(cli, ["requeue", "p1", "--all-parked"], env=env)
    assert both.exit_code == 2
    assert "either AGENT or --all-parked" in both.output
    requeued = runner.invoke(cli, ["requeue", "--all-parked"], env=env)
    assert requeued.exit_code == 0, requeued.output
    assert "3 parked agent(s) -> pending" in requeued.output
    states = {
        r["agent_id"]: r["state"] for r in json.loads(runner.invoke(cli, ["queue", "--json"], env=env).output)
    }
    assert states == {"p1": "pending", "p2": "pending", "p3": "pending", "fine": "idle"}
