"""Applying validated operations to the items.

The LLM only supplies words and an importance. Everything else about an item is the system's: the time
span and the size come from the exchanges it cites, a merged item inherits the span, size and provenance
of its sources, the tier follows from the timestamps, and the id follows from the exchange ids.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from summarizer.domain.messages import EvictedExchange
from summarizer.engine.aging import tier_for_age
from summarizer.engine.item_text import sanitize
from summarizer.engine.model import SummaryItem, make_item_id
from summarizer.engine.operations import Operations
from summarizer.engine.tiers import OLDEST_TIER


def clean_text(text: str) -> str:
    """One line without control characters: a newline in an item would break the Markdown list it is
    rendered into, and a NUL cannot be stored."""
    return " ".join(sanitize(text).split())


@dataclass(frozen=True, slots=True)
class ApplyResult:
    items: tuple[SummaryItem, ...]
    added_ids: tuple[str, ...]
    merged_ids: tuple[str, ...]
    removed_ids: tuple[str, ...]


def _split_tokens(ops: Operations, batch: Mapping[int, EvictedExchange]) -> list[int]:
    """Each added item's share of its exchanges' tokens; an exchange cited twice is not counted twice."""
    citations = Counter(x for add in ops.add for x in set(add.exchange_ids))
    seen: set[int] = set()
    shares = []
    for add in ops.add:
        total = 0
        for x in sorted(set(add.exchange_ids)):
            tokens = batch[x].tokens
            share = tokens // citations[x]
            if x not in seen:
                share += tokens % citations[x]
                seen.add(x)
            total += share
        shares.append(total)
    return shares


def apply_operations(
    items: Sequence[SummaryItem],
    ops: Operations,
    batch: Mapping[int, EvictedExchange],
    now: datetime,
) -> ApplyResult:
    by_id = {item.id: item for item in items}
    removed: set[str] = set()
    for drop in ops.drop:
        removed.update(drop.item_ids)
    for merge in ops.merge:
        removed.update(merge.item_ids)
    shortened = {op.item_id: clean_text(op.text) for op in ops.shorten}

    kept = [
        replace(item, text=shortened[item.id]) if item.id in shortened else item
        for item in items
        if item.id not in removed
    ]
    taken = {item.id for item in kept}

    merged: list[SummaryItem] = []
    for merge in ops.merge:
        sources = [by_id[item_id] for item_id in merge.item_ids]
        exchange_ids = tuple(sorted({x for s in sources for x in s.exchange_ids}))
        merged.append(
            SummaryItem(
                id=make_item_id(exchange_ids, taken),
                tier=min((s.tier for s in sources), key=lambda t: t.rank),
                text=clean_text(merge.text),
                started_at=min(s.started_at for s in sources),
                ended_at=max(s.ended_at for s in sources),
                source_tokens=sum(s.source_tokens for s in sources),
                importance=merge.importance,
                exchange_ids=exchange_ids,
            )
        )

    added: list[SummaryItem] = []
    for add, tokens in zip(ops.add, _split_tokens(ops, batch), strict=True):
        cited = [batch[x] for x in sorted(set(add.exchange_ids))]
        ended_at = max(x.ended_at for x in cited)
        added.append(
            SummaryItem(
                id=make_item_id((x.id for x in cited), taken),
                tier=tier_for_age(ended_at, now) or OLDEST_TIER,
                text=clean_text(add.text),
                started_at=min(x.started_at for x in cited),
                ended_at=ended_at,
                source_tokens=tokens,
                importance=add.importance,
                exchange_ids=tuple(x.id for x in cited),
            )
        )
    return ApplyResult(
        items=(*kept, *merged, *added),
        added_ids=tuple(item.id for item in added),
        merged_ids=tuple(item.id for item in merged),
        removed_ids=tuple(sorted(removed)),
    )
