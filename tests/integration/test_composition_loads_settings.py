"""`build_summarizer()` given no settings reads them through the composition root's `load()`: the
environment's values are used and its secrets are registered for masking before anything is recorded."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from summarizer import composition
from summarizer.domain import secrets
from summarizer.domain.kinds import Kind

TOKEN = "tok-3f9a1c77e2b04d5e8a6b"
PASSWORD = "pw-0c41d9b2"


def test_build_summarizer_without_settings_loads_them_through_the_root(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SUMMARIZER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SUMMARIZER_LLM", "fake")
    monkeypatch.setenv("SUMMARIZER_API_TOKENS", TOKEN)
    assert secrets.redact(f"the token is {TOKEN}") == f"the token is {TOKEN}"  # nothing registered yet

    host = composition.build_summarizer()

    assert secrets.redact(f"the token is {TOKEN}") != f"the token is {TOKEN}"
    host.record_message("a1", Kind.USER, f"use {TOKEN} for the API")
    [stored] = host.get_context("a1").messages
    assert TOKEN not in stored.content
    assert (tmp_path / "data" / "summarizer.db").is_file()  # the environment's data folder


def test_an_outage_names_the_database_the_root_loaded(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SUMMARIZER_DATABASE_URL", f"postgresql://u:{PASSWORD}@db.invalid:5432/fleet")
    composition.load()
    line = composition.database_outage(OperationalError("SELECT 1", {}, Exception("connection refused")))
    assert line is not None
    assert "db.invalid:5432/fleet" in line
    assert PASSWORD not in line
