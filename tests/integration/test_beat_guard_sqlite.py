"""The single-beat guard follows the database's kind: an explicit `sqlite:` URL gets the file lock (beside
its database file), never PostgreSQL's advisory lock."""

from __future__ import annotations

from pathlib import Path

import pytest

from summarizer.composition.database import beat_guard
from summarizer.settings import load_settings
from tests.support.beat_lock import lock_file
from workers.beat import BeatAlreadyRunning, acquire_beat_guard, check_beat_guard


def test_an_explicit_sqlite_url_takes_a_file_lock_beside_its_database(tmp_path: Path) -> None:
    database = tmp_path / "deploy" / "s.db"
    settings = load_settings(database_url=f"sqlite:///{database.as_posix()}", data_dir=tmp_path / "data")
    assert not settings.embedded_database
    assert lock_file(settings) == database.with_name("s.db.beat.lock")
    assert not beat_guard(settings).watched  # a flock lives as long as its holder: nothing to check
    guard = acquire_beat_guard(settings)
    try:
        assert check_beat_guard(settings, guard) is guard
        with pytest.raises(BeatAlreadyRunning, match=r"s\.db\.beat\.lock"):
            acquire_beat_guard(settings)
    finally:
        guard.close()
    acquire_beat_guard(settings).close()  # free again once the holder let go


def test_the_embedded_database_keeps_its_lock_in_the_data_directory(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path / "data")
    assert lock_file(settings) == tmp_path / "data" / "beat.lock"
