from __future__ import annotations

from datetime import timedelta

import pytest

from summarizer.engine.model import Summary, Tier
from summarizer.engine.render import (
    NO_SUMMARY_YET,
    approx_tokens,
    relative_time,
    render_items,
    render_summary,
)
from tests.unit.engine.helpers import NOW, item


def test_render_matches_the_seed_format() -> None:
    items = [
        item((1,), text="Implemented JWT auth.", ended_ago=timedelta(minutes=45), tokens=12_000),
        item(
            (2,),
            tier=Tier.YESTERDAY,
            text="Fixed the login bug.",
            ended_ago=timedelta(hours=30),
            tokens=18_000,
        ),
        item(
            (3, 4),
            tier=Tier.WEEK,
            text="Designed the API.",
            ended_ago=timedelta(days=8, hours=15),  # Tuesday 00:00
            span=timedelta(hours=2),  # started Monday 22:00
            tokens=25_000,
        ),
        item((5,), tier=Tier.WEEK, text="Chose PostgreSQL.", ended_ago=timedelta(days=9), tokens=8_000),
    ]
    assert render_items(items, NOW) == (
        "## Previously in This Session\n"
        "1. Implemented JWT auth. (45min ago, ~12k tokens)\n"
        "\n"
        "## Yesterday\n"
        "1. Fixed the login bug. (~18k tokens)\n"
        "\n"
        "## This Week\n"
        "1. Chose PostgreSQL. (Mon, ~8k tokens)\n"
        "2. Designed the API. (Mon-Tue, ~25k tokens)\n"
    )


def test_empty_tiers_are_left_out() -> None:
    text = render_items([item((1,), tier=Tier.WEEK)], NOW)
    assert text.startswith("## This Week\n1. ")
    assert "Session" not in text
    assert "Yesterday" not in text


def test_items_are_numbered_oldest_first() -> None:
    text = render_items(
        [item((2,), text="Second.", ended_ago=timedelta(minutes=5)), item((1,), text="First.")], NOW
    )
    assert text.index("1. First.") < text.index("2. Second.")


def test_placeholder_when_there_is_no_summary() -> None:
    assert render_summary(None, NOW) == NO_SUMMARY_YET
    assert render_summary(Summary.empty("a"), NOW) == NO_SUMMARY_YET
    assert render_items([], NOW) == ""


@pytest.mark.parametrize(
    ("ago", "expected"),
    [
        (timedelta(seconds=10), "just now"),
        (timedelta(minutes=45), "45min ago"),
        (timedelta(hours=3, minutes=59), "3h ago"),
        (timedelta(days=2, hours=1), "2d ago"),
    ],
)
def test_relative_time(ago: timedelta, expected: str) -> None:
    assert relative_time(NOW - ago, NOW) == expected


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [(0, "~0 tokens"), (850, "~850 tokens"), (1499, "~1k tokens"), (12_500, "~13k tokens")],
)
def test_approx_tokens(tokens: int, expected: str) -> None:
    assert approx_tokens(tokens) == expected
