"""The single-beat guard on PostgreSQL survives losing its session, unless another beat took over meanwhile."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from summarizer.composition.database import beat_guard
from summarizer.settings import Settings, load_settings
from summarizer.storage.postgres.beat_guard import ADVISORY_LOCK_KEY, AdvisoryLockGuard
from summarizer.storage.sql.backend import GuardHandle
from tests.support.fleet import wait_for
from workers.beat import BeatAlreadyRunning, acquire_beat_guard, check_beat_guard


@pytest.fixture
def settings(postgres_url: str, tmp_path: Path) -> Settings:
    return load_settings(database_url=postgres_url, data_dir=tmp_path)


@pytest.fixture
def admin(settings: Settings) -> Iterator[psycopg.Connection[Any]]:
    url = settings.database_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url, autocommit=True) as conn:
        # A guard an earlier test (or a beat process of an earlier test) closed holds the lock until the
        # server has ended its session, a moment later: each test starts with the lock free.
        wait_for(lambda: _lock_is_free(conn), 10, "an earlier beat's lock to be released")
        yield conn


def _terminate(admin: psycopg.Connection[Any], guard: GuardHandle) -> None:
    assert isinstance(guard, psycopg.Connection)  # the guard's session
    row = admin.execute("SELECT pg_terminate_backend(%s)", (guard.info.backend_pid,)).fetchone()
    assert row is not None
    assert row[0]


def _lock_is_free(admin: psycopg.Connection[Any]) -> bool:
    row = admin.execute("SELECT pg_try_advisory_lock(%s)", (ADVISORY_LOCK_KEY,)).fetchone()
    assert row is not None
    if row[0]:
        admin.execute("SELECT pg_advisory_unlock(%s)", (ADVISORY_LOCK_KEY,))
    return bool(row[0])


def test_a_postgresql_url_gets_the_advisory_lock_checked_while_held(settings: Settings) -> None:
    guard = beat_guard(settings)
    assert isinstance(guard, AdvisoryLockGuard)
    assert guard.watched  # its session can end under a live beat


def test_a_live_guard_is_kept_as_it_is(settings: Settings, admin: psycopg.Connection[Any]) -> None:
    guard = acquire_beat_guard(settings)
    try:
        assert check_beat_guard(settings, guard) is guard
        assert not _lock_is_free(admin)
    finally:
        guard.close()
    # The server ends the closed session (and drops its lock) a moment after the client has closed it.
    wait_for(lambda: _lock_is_free(admin), 10, "the closed session's lock to be released")


def test_a_lost_session_is_replaced_and_the_lock_taken_again(
    settings: Settings, admin: psycopg.Connection[Any]
) -> None:
    guard = acquire_beat_guard(settings)
    _terminate(admin, guard)
    fresh = check_beat_guard(settings, guard)
    try:
        assert fresh is not guard
        assert not _lock_is_free(admin)  # held again, by the new session
    finally:
        fresh.close()


def test_a_beat_whose_lock_another_beat_took_meanwhile_is_told_to_stop(
    settings: Settings, admin: psycopg.Connection[Any]
) -> None:
    guard = acquire_beat_guard(settings)
    _terminate(admin, guard)
    other = acquire_beat_guard(settings)  # a second beat, started while the first had lost its session
    try:
        with pytest.raises(BeatAlreadyRunning):
            check_beat_guard(settings, guard)
    finally:
        other.close()
