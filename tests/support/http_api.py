"""The HTTP API under test: hermetic settings, two tokens (one unscoped, one scoped), a TestClient."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from summarizer.composition import build_http_app
from summarizer.settings import Settings, load_settings
from summarizer.storage.sql.database import Database

OPERATOR_TOKEN = "operator-token-0123456789"
SCOPED_TOKEN = "scoped-token-0123456789"
SCOPE = "team-a/"
API_TOKENS = f"{OPERATOR_TOKEN},{SCOPED_TOKEN}@{SCOPE}"


def hermetic_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **overrides: Any) -> Settings:
    """Settings from the overrides and defaults only: the developer's SUMMARIZER_* variables are ignored."""
    for name in Settings.model_fields:
        monkeypatch.delenv(f"SUMMARIZER_{name.upper()}", raising=False)
    values: dict[str, Any] = {"data_dir": tmp_path / "data", "api_tokens": API_TOKENS, "llm": "fake"}
    values.update(overrides)
    return load_settings(**values)


def fake_openai_settings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, url: str, **overrides: Any
) -> Settings:
    """`hermetic_settings` for the OpenAI provider at `url` (a fake Chat Completions API), a 200-token window
    and one exchange a batch, folded at once: each eviction is one model call."""
    values: dict[str, Any] = {
        "llm": "openai",
        "openai_api_key": "sk-fake-cost",
        "openai_base_url": url,
        "window_tokens": 200,
        "batch_size": 1,
        "max_batch_exchanges": 1,
        "batch_max_wait": 0,
    }
    return hermetic_settings(monkeypatch, tmp_path, **(values | overrides))


def hermetic_settings_on(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **overrides: Any
) -> Settings:
    """`hermetic_settings` whose database URL is `db`'s."""
    url = db.url.render_as_string(hide_password=False)
    return hermetic_settings(monkeypatch, tmp_path, database_url=url, **overrides)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def api_client(db: Database, settings: Settings) -> TestClient:
    return TestClient(build_http_app(settings, db), headers=bearer(OPERATOR_TOKEN))


def canonical(kind: str, content: str, **fields: Any) -> dict[str, Any]:
    return {"kind": kind, "content": content, **fields}


def exchange(n: int, words: int = 30) -> list[dict[str, Any]]:
    """One user/assistant exchange of about `words` tokens each side, with host ids."""
    text = " ".join(f"word{n}_{i}" for i in range(words))
    return [
        canonical("user", f"Question {n}: {text}", id=f"u{n}"),
        canonical("assistant", f"Answer {n}: {text}", id=f"a{n}"),
    ]


def cli_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database) -> Settings:
    """Settings for commands run in-process (`invoke`) against `db`: small windows, the fake LLM, a data
    directory under `tmp_path`; the same values reach the CLI through the environment."""
    url = db.url.render_as_string(hide_password=False)
    wired = hermetic_settings(monkeypatch, tmp_path, window_tokens=200, batch_size=1, database_url=url)
    monkeypatch.setenv("SUMMARIZER_DATABASE_URL", url)
    monkeypatch.setenv("SUMMARIZER_LLM", "fake")
    monkeypatch.setenv("SUMMARIZER_DATA_DIR", str(tmp_path / "data"))
    return wired


def invoke(*args: str) -> str:
    """Run `summarizer ARGS` in-process; its output (a non-zero exit fails the test)."""
    from click.testing import CliRunner

    from summarizer.cli.main import cli

    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output
