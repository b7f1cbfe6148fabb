"""Settings: defaults, validation messages, URL normalisation, and the configuration table staying true."""

from __future__ import annotations

from pathlib import Path

import pytest

from summarizer.settings import Settings, SettingsError, load_settings
from summarizer.settings_table import START, readme_with_table

CONFIGURATION = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def test_defaults_are_the_embedded_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in Settings.model_fields:
        monkeypatch.delenv(f"SUMMARIZER_{name.upper()}", raising=False)
    settings = load_settings()
    assert settings.embedded_database
    assert settings.resolved_database_url() == "sqlite:///.summarizer/summarizer.db"
    assert (settings.window_tokens, settings.batch_size, settings.batch_max_wait) == (100_000, 3, 900.0)
    assert (settings.summary_max_tokens, settings.max_message_bytes) == (10_000, 1_048_576)


def test_bad_values_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUMMARIZER_BATCH_SIZE", "0")
    monkeypatch.setenv("SUMMARIZER_LLM", "gpt")
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert "SUMMARIZER_BATCH_SIZE" in str(info.value)
    assert "SUMMARIZER_LLM" in str(info.value)


def test_plain_postgres_urls_use_psycopg_3(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUMMARIZER_DATABASE_URL", "postgresql://u@db:5432/app")
    assert load_settings().resolved_database_url() == "postgresql+psycopg://u@db:5432/app"


def test_settings_are_not_built_at_import_time() -> None:
    import summarizer.settings as module

    assert not any(isinstance(value, Settings) for value in vars(module).values())


def test_the_configuration_page_lists_every_setting() -> None:
    text = CONFIGURATION.read_text()
    assert text.count(START) == 1, f"{CONFIGURATION} lost its table markers"
    assert readme_with_table(text) == text, "run: uv run python -m summarizer.settings_table --write"
