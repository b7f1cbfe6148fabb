"""Time-based aging: the system, not the LLM, decides an item's tier from its `ended_at`.

The age bounds come from the tier table (`tiers`). Aging is a pure function of the items and `now`:
applying it twice as of the same moment changes nothing, and an item never moves to a younger tier (a
merged item may carry an older tier than its end suggests).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from summarizer.engine.model import SummaryItem, Tier, as_utc
from summarizer.engine.tiers import KEEP_FOR_DAYS, tier_for


def tier_for_age(ended_at: datetime, now: datetime) -> Tier | None:
    """The tier an item ending at `ended_at` belongs to as of `now`; None once it is past keeping."""
    return tier_for(as_utc(now) - as_utc(ended_at))


def is_expired(ended_at: datetime, now: datetime) -> bool:
    return tier_for_age(ended_at, now) is None


def expiry_detail(ended_at: datetime) -> str:
    """Why something was aged out, for the provenance record."""
    return f"ended {as_utc(ended_at).date().isoformat()}, more than {KEEP_FOR_DAYS} days ago"


@dataclass(frozen=True, slots=True)
class AgingResult:
    items: tuple[SummaryItem, ...]
    moved: int
    dropped: int
    dropped_ids: tuple[str, ...] = ()
    dropped_items: tuple[SummaryItem, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.moved or self.dropped)


def age_items(items: Sequence[SummaryItem], now: datetime) -> AgingResult:
    kept: list[SummaryItem] = []
    dropped: list[SummaryItem] = []
    moved = 0
    for item in items:
        due = tier_for_age(item.ended_at, now)
        if due is None:
            dropped.append(item)
            continue
        if due.rank > item.tier.rank:
            kept.append(replace(item, tier=due))
            moved += 1
        else:
            kept.append(item)
    return AgingResult(
        tuple(kept),
        moved=moved,
        dropped=len(dropped),
        dropped_ids=tuple(item.id for item in dropped),
        dropped_items=tuple(dropped),
    )
