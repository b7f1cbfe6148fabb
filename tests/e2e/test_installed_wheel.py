"""The built wheel works on its own: installed into a fresh virtualenv, away from the source tree, it
migrates an embedded database, ingests, drains and prints the summary."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.support.services import ROOT

pytestmark = pytest.mark.slow

# Proxies, caches and index settings pass through; nothing of the project's own configuration does.
HERMETIC_PREFIXES = ("SUMMARIZER_", "ANTHROPIC_", "OPENAI_", "VIRTUAL_ENV", "PYTHONPATH", "UV_PROJECT")


def _uv() -> str:
    found = shutil.which("uv")
    assert found, "uv is needed to build and install the wheel (scripts/bootstrap installs it)"
    return found


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> str:
    result = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert result.returncode == 0, (
        f"{argv}: exit {result.returncode}\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    )
    return result.stdout


def _conversation(now: datetime) -> str:
    rows = []
    for i in range(6):
        stamp = (now - timedelta(hours=2) + timedelta(minutes=i)).isoformat()
        rows += [
            {
                "agent": "bot",
                "id": f"u{i}",
                "kind": "user",
                "content": f"Add feature {i}",
                "created_at": stamp,
                "tokens": 30,
            },
            {
                "agent": "bot",
                "id": f"a{i}",
                "kind": "assistant",
                "content": f"Added feature {i}.",
                "created_at": stamp,
                "tokens": 30,
            },
        ]
    return "".join(json.dumps(row) + "\n" for row in rows)


def test_the_wheel_installed_in_a_fresh_virtualenv_migrates_ingests_drains_and_summarizes(
    tmp_path: Path,
) -> None:
    uv = _uv()
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(HERMETIC_PREFIXES)}
    dist = tmp_path / "dist"
    _run([uv, "build", "--wheel", "--out-dir", str(dist), str(ROOT)], tmp_path, base_env)
    (wheel,) = dist.glob("tiered_summarizer-*.whl")
    venv = tmp_path / "venv"
    _run([uv, "venv", "--quiet", str(venv)], tmp_path, base_env)
    python = venv / "bin" / "python"
    _run([uv, "pip", "install", "--quiet", "--python", str(python), str(wheel)], tmp_path, base_env)

    work = tmp_path / "work"  # no source checkout in sight: only the installed package can answer
    work.mkdir()
    location = _run([str(python), "-c", "import summarizer; print(summarizer.__file__)"], work, base_env)
    assert Path(location.strip()).is_relative_to(venv), location
    env = base_env | {
        "SUMMARIZER_DATABASE_URL": f"sqlite:///{(tmp_path / 'summarizer.db').as_posix()}",
        "SUMMARIZER_DATA_DIR": str(tmp_path / "data"),
        "SUMMARIZER_WINDOW_TOKENS": "70",
        "SUMMARIZER_BATCH_SIZE": "2",
        "SUMMARIZER_LLM": "offline",
    }
    summarizer = str(venv / "bin" / "summarizer")
    assert f"database at {_head_revision()}" in _run([summarizer, "db", "upgrade"], work, env)
    chat = work / "chat.jsonl"
    chat.write_text(_conversation(datetime.now(UTC)), encoding="utf-8")
    assert "stored 12 message(s)" in _run([summarizer, "ingest", str(chat)], work, env)
    drained = _run([summarizer, "drain"], work, env)
    assert "drained 0" not in drained, drained
    doc = json.loads(_run([summarizer, "summary", "bot", "--json"], work, env))
    assert doc["version"] >= 1
    covered = sorted(i for items in doc["tiers"].values() for item in items for i in item["exchange_ids"])
    assert covered == list(range(1, doc["covered_through_exchange_id"] + 1))
    assert covered
    assert _run([summarizer, "summary", "bot"], work, env).startswith("## Previously in This Session")


def _head_revision() -> str:
    """The newest migration of the checkout, which the wheel must have brought along."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory(str(ROOT / "migrations")).get_current_head()
    assert head is not None
    return head
