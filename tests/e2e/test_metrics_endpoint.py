"""`summarizer metrics` serves the fleet's figures from the database; scraped over HTTP on both databases."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from summarizer.storage.sql.database import Database
from summarizer.storage.sql.writers.breakers import SqlBreakerStore
from tests.acceptance.cli import run_cli
from tests.support.fleet import free_port, wait_for
from tests.support.services import ROOT
from tests.support.workload import feed, make_store


def cli_env(db: Database, tmp_path: Path) -> dict[str, str]:
    return {
        "SUMMARIZER_DATABASE_URL": db.url.render_as_string(hide_password=False),
        "SUMMARIZER_DATA_DIR": str(tmp_path / "data"),
        "SUMMARIZER_LLM": "fake",
        "SUMMARIZER_BATCH_SIZE": "3",
        "SUMMARIZER_MAX_RETRIES": "0",
        # The first call fails for good (a bad batch): that agent is parked, the others are summarized.
        "SUMMARIZER_FAKE_LLM_FAULTS": "1:permanent",
    }


@pytest.fixture
def metrics_server(db: Database, tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUMMARIZER_")}
    env.update(cli_env(db, tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "summarizer", "metrics", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/metrics"
    try:
        wait_for(lambda: urllib.request.urlopen(url, timeout=2).status == 200, 60, "the metrics server")
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def scrape(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.headers["Content-Type"].startswith("text/plain")
        text = response.read().decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def test_metrics_report_queue_parked_breaker_updates_tokens_and_failures(
    db: Database, tmp_path: Path, metrics_server: str
) -> None:
    store = make_store(db)
    for n in range(3):
        feed(store, f"agent-{n}", 5)  # three exchanges evicted each: one batch due
    drained = run_cli("drain", env=cli_env(db, tmp_path))
    assert drained.returncode == 0, drained.stderr
    now = datetime.now(UTC)
    SqlBreakerStore(db).open(
        "anthropic",
        fault="auth",
        error="HTTP 401: invalid x-api-key",
        now=now,
        probe_at=now + timedelta(minutes=5),
        backoff=300,
    )

    m = scrape(metrics_server)

    assert m[("summarizer_queue_agents", (("state", "failed"),))] == 1
    assert m[("summarizer_queue_agents", (("state", "idle"),))] == 2
    assert m[("summarizer_parked_agents", ())] == 1
    assert m[("summarizer_breaker_open", (("provider", "anthropic"),))] == 1
    assert m[("summarizer_breaker_state", (("provider", "anthropic"), ("state", "open")))] == 1
    assert m[("summarizer_breaker_state", (("provider", "anthropic"), ("state", "closed")))] == 0
    assert m[("summarizer_update_runs_total", (("outcome", "ok"),))] == 2
    assert m[("summarizer_update_runs_total", (("outcome", "parked"),))] == 1
    assert m[("summarizer_update_duration_seconds_count", ())] == 2
    assert m[("summarizer_update_duration_seconds_bucket", (("le", "+Inf"),))] == 2
    assert m[("summarizer_llm_tokens_total", (("direction", "input"),))] > 0
    assert m[("summarizer_llm_tokens_total", (("direction", "output"),))] > 0
    assert m[("summarizer_llm_failures_total", (("kind", "agent"),))] == 1
    assert m[("summarizer_summary_tokens_count", ())] == 2
    assert m[("summarizer_summary_tokens_sum", ())] > 0
    assert m[("summarizer_truncations_total", ())] == 0
    assert ("summarizer_aging_lag_seconds", ()) in m


def test_metrics_on_a_busy_port_is_a_clear_error(db: Database, tmp_path: Path, metrics_server: str) -> None:
    port = metrics_server.split(":")[2].split("/")[0]
    result = run_cli("metrics", "--port", port, env=cli_env(db, tmp_path), timeout=60)
    assert result.returncode == 1
    assert "already in use" in result.stderr
    assert "Traceback" not in result.stderr
