"""`summarizer demo`, the README's main job: runs end to end, exits 0, leaves no process behind, stops on Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from summarizer.testing.fake_messages_api import FakeMessagesAPI
from tests.acceptance.cli import ROOT, run_cli

pytestmark = pytest.mark.slow


def processes_using(marker: str) -> list[int]:
    """Live processes whose environment mentions `marker` (the demo's private data directory)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def wait_until_gone(marker: str, timeout: float = 60.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (left := processes_using(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def test_demo_runs_end_to_end_and_leaves_nothing_running(tmp_path: Path) -> None:
    data_dir = str(tmp_path / "demo-data")
    result = run_cli("demo", env={"SUMMARIZER_DATA_DIR": data_dir, "SUMMARIZER_LLM": "offline"}, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    assert "summaries by the offline LLM" in out
    assert "exchange(s) left the window and were summarized" in out
    assert "## Previously in This Session" in out  # all three tiers
    assert "## Yesterday" in out
    assert "## This Week" in out
    assert "LLM tokens: none counted (the offline summarizer calls no model)" in out
    duration = re.search(r"Avg duration: (\d+) ms|Avg duration: (\d+\.\d)s", out)
    assert duration, out[-3000:]
    assert duration.group(0) not in ("Avg duration: 0 ms", "Avg duration: 0.0s")
    assert "Sliding Window (" in out
    assert "[Outside window - in archival]" in out
    assert "Completed:" in out
    assert wait_until_gone(data_dir) == []
    version = json.loads(
        run_cli("summary", "demo-agent", "--json", env={"SUMMARIZER_DATA_DIR": data_dir}).stdout
    )
    rerun = run_cli("demo", env={"SUMMARIZER_DATA_DIR": data_dir, "SUMMARIZER_LLM": "offline"}, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert "(1247 already stored)" in rerun.stdout  # a second run records nothing twice
    after = json.loads(
        run_cli("summary", "demo-agent", "--json", env={"SUMMARIZER_DATA_DIR": data_dir}).stdout
    )
    assert after["covered_through_exchange_id"] == version["covered_through_exchange_id"]
    assert wait_until_gone(data_dir) == []


def test_ctrl_c_stops_the_demo_and_its_worker(tmp_path: Path) -> None:
    data_dir = str(tmp_path / "demo-data")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUMMARIZER_")}
    env |= {"SUMMARIZER_DATA_DIR": data_dir, "SUMMARIZER_LLM": "fake", "SUMMARIZER_FAKE_LLM_LATENCY": "5"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "summarizer", "demo"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 120
        seen = ""
        while "started a summary worker" not in seen and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seen += line
        assert "started a summary worker" in seen, seen
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err[-2000:]
        assert "interrupted" in seen + out
        assert wait_until_gone(data_dir) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.postgres
@pytest.mark.redis
def test_demo_uses_postgres_redis_and_claude_when_configured(
    tmp_path: Path, postgres_url: str, redis_server_url: str
) -> None:
    """With database and broker URLs and an API key, the demo runs on them and asks the Messages API
    (here the local fake of it, reached by the real SDK over HTTP through ANTHROPIC_BASE_URL)."""
    data_dir = str(tmp_path / "demo-data")
    broker = redis_server_url.rsplit("/", 1)[0] + "/13"
    with FakeMessagesAPI() as api:
        env = {
            "SUMMARIZER_DATA_DIR": data_dir,
            "SUMMARIZER_DATABASE_URL": postgres_url,
            "SUMMARIZER_BROKER_URL": broker,
            "ANTHROPIC_API_KEY": "test-key",
            "ANTHROPIC_BASE_URL": api.base_url,
        }
        result = run_cli("demo", env=env, timeout=600)
        assert result.returncode == 0, result.stderr[-2000:]
        assert "summaries by the anthropic LLM" in result.stdout
        assert "on the configured database" in result.stdout
        assert len(api.requests_to("/v1/messages")) >= 1
    assert "## " in result.stdout
    assert wait_until_gone(data_dir) == []


def test_demo_on_an_explicit_sqlite_url_runs_end_to_end(tmp_path: Path) -> None:
    database = tmp_path / "explicit" / "s.db"
    database.parent.mkdir()
    env = {
        "SUMMARIZER_DATA_DIR": str(tmp_path / "data"),
        "SUMMARIZER_DATABASE_URL": f"sqlite:///{database.as_posix()}",
        "SUMMARIZER_LLM": "offline",
        "SUMMARIZER_DEMO_STALL_SECONDS": "120",
    }
    result = run_cli("demo", env=env, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "were summarized" in result.stdout
    assert (tmp_path / "explicit" / "s.db.beat.lock").exists()
    assert wait_until_gone(str(tmp_path / "data")) == []


def test_a_demo_that_makes_no_progress_says_what_is_stuck_and_exits(tmp_path: Path) -> None:
    outage = tmp_path / "outage"
    outage.write_text("connection")  # every model call fails: the breaker pauses all updates
    env = {
        "SUMMARIZER_DATA_DIR": str(tmp_path / "data"),
        "SUMMARIZER_LLM": "fake",
        "SUMMARIZER_FAKE_LLM_OUTAGE_FILE": str(outage),
    }
    result = run_cli("demo", "--stall-timeout", "8", env=env, timeout=300)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    assert "stuck: no exchange folded for 8s" in result.stderr
    assert "demo-worker.log" in result.stderr
    assert "Traceback" not in result.stderr
    assert wait_until_gone(str(tmp_path / "data")) == []
