"""Every builder given no database opens one through `open_database`: at the current schema or not at all."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from summarizer import composition
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.settings import Settings
from summarizer.storage.sql.migrations import SchemaOutOfDate
from tests.support.http_api import hermetic_settings

BUILDERS: dict[str, Callable[[Settings], Any]] = {
    "summarizer": composition.build_summarizer,
    "update_service": composition.build_update_service,
    "alert_service": composition.build_alert_service,
    "operations": composition.build_operations,
    "http_app": composition.build_http_app,
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_shared_database_behind_the_schema_is_refused(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    url = f"sqlite:///{(tmp_path / 'shared.db').as_posix()}"  # named explicitly: not the embedded default
    settings = hermetic_settings(monkeypatch, tmp_path, database_url=url)
    with pytest.raises(SchemaOutOfDate, match="summarizer db upgrade"):
        BUILDERS[name](settings)
    assert composition.build_schema(settings).current() is None  # refused, and nothing was migrated


def test_the_embedded_database_is_brought_to_the_schema_on_first_use(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings = hermetic_settings(monkeypatch, tmp_path)
    assert settings.embedded_database
    host = composition.build_summarizer(settings)
    host.record_message("a1", Kind.USER, "hello")
    assert [m.content for m in host.get_context("a1").messages] == ["hello"]
    assert composition.build_schema(settings).current() is not None


def test_the_schema_facade_moves_the_schema_both_ways(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    url = f"sqlite:///{(tmp_path / 'shared.db').as_posix()}"
    settings = hermetic_settings(monkeypatch, tmp_path, database_url=url)
    schema = composition.build_schema(settings)
    schema.upgrade()
    head = schema.current()
    assert head is not None
    host = composition.build_summarizer(settings)  # at the schema now: accepted
    host.record_batch("a1", [NewMessage(Kind.USER, "hi")])
    schema.downgrade("base")
    assert schema.current() is None
    with pytest.raises(SchemaOutOfDate):
        composition.build_summarizer(settings)
