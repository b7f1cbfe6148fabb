"""/docs works without internet access: the page and every file it loads come from this server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from summarizer.storage.sql.database import Database
from tests.support.http_api import api_client, hermetic_settings


def test_the_docs_page_loads_nothing_from_elsewhere(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    client = api_client(db, hermetic_settings(monkeypatch, tmp_path))
    page = client.get("/docs")
    assert page.status_code == 200
    assert "cdn." not in page.text
    loaded = re.findall(r"""(?:src|href)=["']([^"']+)["']""", page.text)
    assert loaded
    for url in loaded:
        assert url.startswith("/"), url
        assert client.get(url).status_code == 200, url
    assert "'/openapi.json'" in page.text or '"/openapi.json"' in page.text
    assert client.get("/openapi.json").status_code == 200
