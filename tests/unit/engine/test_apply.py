from __future__ import annotations

from datetime import timedelta

from summarizer.engine.apply import apply_operations
from summarizer.engine.model import Importance, Tier
from summarizer.engine.operations import AddOp, DropOp, MergeOp, Operations, ShortenOp
from tests.unit.engine.helpers import NOW, exchange, item


def test_system_sets_span_tokens_tier_and_provenance_of_added_items() -> None:
    batch = {
        10: exchange(10, ended_ago=timedelta(hours=2), tokens=4000),
        11: exchange(11, ended_ago=timedelta(hours=1), tokens=6000),
    }
    ops = Operations(add=(AddOp((11, 10), "Added  JWT\nauth.", Importance.HIGH),))
    (added,) = apply_operations([], ops, batch, NOW).items
    assert added.id == "x10-11"
    assert added.exchange_ids == (10, 11)
    assert added.started_at == batch[10].started_at
    assert added.ended_at == batch[11].ended_at
    assert added.source_tokens == 10_000
    assert added.tier is Tier.SESSION
    assert added.text == "Added JWT auth."


def test_added_item_for_old_exchanges_lands_in_an_older_tier() -> None:
    batch = {5: exchange(5, ended_ago=timedelta(days=3))}
    (added,) = apply_operations(
        [], Operations(add=(AddOp((5,), "Old work.", Importance.LOW),)), batch, NOW
    ).items
    assert added.tier is Tier.YESTERDAY


def test_exchange_cited_twice_is_not_counted_twice() -> None:
    batch = {10: exchange(10, tokens=1001)}
    ops = Operations(
        add=(AddOp((10,), "Part one.", Importance.HIGH), AddOp((10,), "Part two.", Importance.LOW))
    )
    result = apply_operations([], ops, batch, NOW)
    assert [i.source_tokens for i in result.items] == [501, 500]
    assert [i.id for i in result.items] == ["x10", "x10.2"]


def test_merge_inherits_span_tokens_and_provenance() -> None:
    a = item((1,), ended_ago=timedelta(hours=5), tokens=8000)
    b = item((2, 3), ended_ago=timedelta(hours=3), tokens=9000)
    c = item((4,))
    ops = Operations(merge=(MergeOp(("x1", "x2-3"), "Implemented JWT auth.", Importance.HIGH),))
    result = apply_operations([a, b, c], ops, {}, NOW)
    assert [i.id for i in result.items] == ["x4", "x1-3"]
    merged = result.items[1]
    assert (merged.started_at, merged.ended_at) == (a.started_at, b.ended_at)
    assert merged.source_tokens == 17_000
    assert merged.exchange_ids == (1, 2, 3)
    assert result.merged_ids == ("x1-3",)
    assert result.removed_ids == ("x1", "x2-3")


def test_merge_across_tiers_keeps_the_youngest_sources_tier() -> None:
    old = item((1,), tier=Tier.WEEK, ended_ago=timedelta(days=8))
    new = item((2,), tier=Tier.YESTERDAY, ended_ago=timedelta(days=2))
    ops = Operations(merge=(MergeOp(("x1", "x2"), "Auth work.", Importance.HIGH),))
    (merged,) = apply_operations([old, new], ops, {}, NOW).items
    assert merged.tier is Tier.YESTERDAY


def test_shorten_and_drop() -> None:
    items = [item((1,), text="A long winded text."), item((2,)), item((3,))]
    ops = Operations(
        shorten=(ShortenOp("x1", "Short."),),
        drop=(DropOp(("x2",), (), "debugging dead end"),),
    )
    result = apply_operations(items, ops, {}, NOW)
    assert [(i.id, i.text) for i in result.items] == [("x1", "Short."), ("x3", items[2].text)]
