"""Marks that mean what they say: `postgres` and `redis` follow from the fixtures a test uses, and a test
that reaches a service or starts processes without its mark fails with a message naming the mark."""

from __future__ import annotations

import pytest

POSTGRES_FIXTURES = frozenset({"postgres_url", "empty_postgres_url", "postgres_db", "pg"})
REDIS_FIXTURES = frozenset({"redis_server_url"})
# Settings read from the environment by the product or its SDKs; tests set what they need explicitly.
AMBIENT_PREFIXES = ("SUMMARIZER_", "ANTHROPIC_", "OPENAI_", "FLOWER_")

_running: pytest.Item | None = None


def add_service_marks(item: pytest.Item) -> None:
    names = set(getattr(item, "fixturenames", ()))
    callspec = getattr(item, "callspec", None)
    on_postgres = callspec is not None and "postgresql" in callspec.params.values()
    if on_postgres or names & POSTGRES_FIXTURES:
        item.add_marker(pytest.mark.postgres)
    if names & REDIS_FIXTURES:
        item.add_marker(pytest.mark.redis)


def set_running(item: pytest.Item | None) -> None:
    global _running
    _running = item


def require_mark(mark: str, what: str) -> None:
    """Fail the running test when it does `what` without carrying `mark`."""
    if _running is not None and _running.get_closest_marker(mark) is None:
        pytest.fail(f"{_running.nodeid} {what} but is not marked `{mark}`", pytrace=False)
