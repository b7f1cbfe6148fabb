from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from summarizer.engine.aging import age_items, tier_for_age
from summarizer.engine.model import SummaryItem, Tier
from tests.unit.engine.helpers import NOW, item


@pytest.mark.parametrize(
    ("ago", "tier"),
    [
        (timedelta(hours=23, minutes=59), Tier.SESSION),
        (timedelta(hours=24, seconds=1), Tier.YESTERDAY),
        (timedelta(days=7, seconds=1), Tier.WEEK),
        (timedelta(days=14), Tier.WEEK),
        (timedelta(days=14, seconds=1), None),
    ],
)
def test_tier_follows_the_age_of_the_end(ago: timedelta, tier: Tier | None) -> None:
    assert tier_for_age(NOW - ago, NOW) == tier


def test_aging_moves_old_items_and_drops_expired_ones_with_counts() -> None:
    items = [
        item((1,), ended_ago=timedelta(hours=2)),
        item((2,), ended_ago=timedelta(hours=30)),
        item((3,), tier=Tier.YESTERDAY, ended_ago=timedelta(days=8)),
        item((4,), tier=Tier.WEEK, ended_ago=timedelta(days=15)),
        item((5,), ended_ago=timedelta(days=20)),
    ]
    result = age_items(items, NOW)
    assert [(i.id, i.tier) for i in result.items] == [
        ("x1", Tier.SESSION),
        ("x2", Tier.YESTERDAY),
        ("x3", Tier.WEEK),
    ]
    assert (result.moved, result.dropped) == (2, 2)
    assert result.dropped_ids == ("x4", "x5")


def test_aging_never_moves_an_item_to_a_younger_tier() -> None:
    recent_but_week = item((1,), tier=Tier.WEEK, ended_ago=timedelta(minutes=5))
    result = age_items([recent_but_week], NOW)
    assert result.items == (recent_but_week,)
    assert not result.changed


_aging_items = st.builds(
    lambda n, tier, minutes: item((n,), tier=tier, ended_ago=timedelta(minutes=minutes)),
    st.integers(1, 1000),
    st.sampled_from(Tier),
    st.integers(-60, 20 * 24 * 60),
)


@settings(max_examples=300, deadline=None)
@given(
    items=st.lists(_aging_items, max_size=20, unique_by=lambda i: i.id), later=st.integers(0, 60 * 24 * 20)
)
def test_aging_is_idempotent_and_monotone(items: list[SummaryItem], later: int) -> None:
    once = age_items(items, NOW)
    twice = age_items(once.items, NOW)
    assert twice.items == once.items
    assert not twice.changed
    then = age_items(once.items, NOW + timedelta(minutes=later))
    before = {i.id: i.tier.rank for i in once.items}
    assert all(i.tier.rank >= before[i.id] for i in then.items)
