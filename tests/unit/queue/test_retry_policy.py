"""The retry policy: exponential backoff with jitter, retry_after as a floor, parking."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from summarizer.domain.retry import Park, RetryAt, RetryPolicy

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def test_delays_grow_exponentially_within_jitter_bounds() -> None:
    policy = RetryPolicy(max_retries=10, base_seconds=2, max_seconds=60)
    rng = random.Random(1)
    for failures, cap in [(1, 2), (2, 4), (3, 8), (4, 16), (6, 60), (9, 60)]:
        for _ in range(50):
            decision = policy.decide(failures=failures, permanent=False, now=NOW, rng=rng)
            assert isinstance(decision, RetryAt)
            assert cap / 2 <= decision.delay_seconds <= cap
            assert decision.priority == failures


def test_jitter_spreads_a_fleet() -> None:
    policy = RetryPolicy(base_seconds=10, max_seconds=100)
    delays = {policy.delay(3, random.Random(seed)) for seed in range(20)}
    assert len(delays) == 20


def test_retry_after_is_a_floor_but_capped() -> None:
    policy = RetryPolicy(base_seconds=1, max_seconds=30)
    d = policy.decide(failures=1, permanent=False, now=NOW, retry_after=20, rng=random.Random(0))
    assert isinstance(d, RetryAt)
    assert d.delay_seconds == 20
    d = policy.decide(failures=1, permanent=False, now=NOW, retry_after=999, rng=random.Random(0))
    assert isinstance(d, RetryAt)
    assert d.delay_seconds == 30


def test_parks_past_max_retries_and_on_permanent_failures() -> None:
    policy = RetryPolicy(max_retries=5)
    assert isinstance(policy.decide(failures=5, permanent=False, now=NOW), RetryAt)
    assert isinstance(policy.decide(failures=6, permanent=False, now=NOW), Park)
    assert isinstance(policy.decide(failures=1, permanent=True, now=NOW), Park)
    assert isinstance(RetryPolicy(max_retries=0).decide(failures=1, permanent=False, now=NOW), Park)


@pytest.mark.parametrize(("kwargs"), [{"max_retries": -1}, {"base_seconds": 10, "max_seconds": 5}])
def test_rejects_nonsense(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError, match=r"need|must"):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]
