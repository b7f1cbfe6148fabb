from __future__ import annotations

import ast
from datetime import timedelta
from pathlib import Path

import summarizer
from summarizer.engine.model import Summary, in_time_order
from summarizer.engine.render import render_items, render_summary
from summarizer.engine.tiers import (
    KEEP_FOR,
    TIER_TABLE,
    TIERS_YOUNG_TO_OLD,
    Tier,
    describe_tiers,
    min_age,
    tier_for,
    tier_rule,
)
from summarizer.views import summary_json
from tests.unit.engine.helpers import NOW, item


def test_the_table_holds_names_headings_bounds_and_order() -> None:
    rows = [(r.name, r.heading, r.max_age, r.order) for r in TIER_TABLE]
    assert rows == [
        ("session", "## Previously in This Session", timedelta(hours=24), 0),
        ("yesterday", "## Yesterday", timedelta(days=7), 1),
        ("week", "## This Week", timedelta(days=14), 2),
    ]
    assert TIERS_YOUNG_TO_OLD == (Tier.SESSION, Tier.YESTERDAY, Tier.WEEK)
    assert [t.rank for t in TIERS_YOUNG_TO_OLD] == [0, 1, 2]
    assert timedelta(days=14) == KEEP_FOR
    assert min_age(Tier.SESSION) == timedelta(0)
    assert min_age(Tier.WEEK) == timedelta(days=7)
    assert describe_tiers() == "session, -> yesterday after 24 h, -> week after 7 days, dropped after 14 days"


def test_age_bounds_are_inclusive_at_the_top() -> None:
    assert tier_for(timedelta(hours=24)) is Tier.SESSION
    assert tier_for(timedelta(hours=24, microseconds=1)) is Tier.YESTERDAY
    assert tier_for(timedelta(days=7)) is Tier.YESTERDAY
    assert tier_for(timedelta(days=7, microseconds=1)) is Tier.WEEK
    assert tier_for(timedelta(days=14)) is Tier.WEEK
    assert tier_for(timedelta(days=14, microseconds=1)) is None


def test_rendering_takes_headings_from_the_table() -> None:
    items = [
        item((1,), ended_ago=timedelta(hours=1)),
        item((2,), tier=Tier.YESTERDAY, ended_ago=timedelta(days=2)),
        item((3,), tier=Tier.WEEK, ended_ago=timedelta(days=8)),
    ]
    text = render_items(items, NOW)
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == [tier_rule(t).heading for t in TIERS_YOUNG_TO_OLD]


def test_no_other_module_spells_out_a_tier_rule() -> None:
    """Headings and age bounds live only in the tier table."""
    root = Path(summarizer.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        if path.name == "tiers.py" or "samples" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and any(
                    h in node.value for h in ("## Previously in This Session", "## Yesterday", "## This Week")
                )
            ):
                offenders.append(f"{path.relative_to(root)}:{node.lineno}")
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "timedelta":
                for kw in node.keywords:
                    if isinstance(kw.value, ast.Constant) and (kw.arg, kw.value.value) in {
                        ("hours", 24),
                        ("days", 7),
                        ("days", 14),
                    }:
                        offenders.append(f"{path.relative_to(root)}:{node.lineno}")
    assert offenders == []


def test_equal_times_order_by_numeric_exchange_id() -> None:
    same = timedelta(minutes=30)
    items = [item((n,), ended_ago=same, text=f"Item {n}.") for n in (10, 2, 11, 1)]
    assert [i.id for i in in_time_order(items)] == ["x1", "x2", "x10", "x11"]
    lines = render_items(items, NOW).splitlines()[1:]
    assert [line.split(" ")[2] for line in lines] == ["1.", "2.", "10.", "11."]
    summary = Summary(agent_id="a", version=1, items=tuple(items))
    assert [
        i["id"] for i in summary_json(summary, "a", render_summary(summary, NOW), 10_000)["tiers"]["session"]
    ] == [
        "x1",
        "x2",
        "x10",
        "x11",
    ]


def test_time_comes_before_ids() -> None:
    older = item((10,), ended_ago=timedelta(hours=2))
    newer = item((2,), ended_ago=timedelta(hours=1))
    assert in_time_order([newer, older]) == [older, newer]
