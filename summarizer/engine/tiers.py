"""The tier table: every rule about the summary's tiers, in one place.

A tier has a name (the stored value), a Markdown heading, the age range of the items it holds (by an item's
`ended_at`), its place in the order (youngest first) and how the rendering labels an item's time. Aging,
rendering, the cap, the ladder and the prompt all read this table; nothing else spells out a tier rule.

    session    "## Previously in This Session"   ended at most 24 h ago    "(45min ago, ~12k tokens)"
    yesterday  "## Yesterday"                     24 h to 7 days            "(~3k tokens)"
    week       "## This Week"                     7 to 14 days              "(Mon-Tue, ~25k tokens)"
    (dropped)                                     more than 14 days
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from itertools import pairwise


class Tier(StrEnum):
    SESSION = "session"
    YESTERDAY = "yesterday"
    WEEK = "week"

    @property
    def rank(self) -> int:
        """0 for the youngest tier; a larger rank is an older tier, and items only ever move up."""
        return _RULES[self].order

    @property
    def heading(self) -> str:
        return _RULES[self].heading


class TimeLabel(StrEnum):
    """How an item's time shows in its rendered line."""

    RELATIVE = "relative"  # "45min ago"
    NONE = "none"  # no time: the heading says it
    WEEKDAYS = "weekdays"  # "Mon" or "Mon-Tue"


@dataclass(frozen=True, slots=True)
class TierRule:
    tier: Tier
    heading: str
    max_age: timedelta
    """An item whose `ended_at` is older than this has left the tier (for the next one, or for good)."""
    order: int
    time_label: TimeLabel

    @property
    def name(self) -> str:
        return self.tier.value


TIER_TABLE: tuple[TierRule, ...] = (
    TierRule(Tier.SESSION, "## Previously in This Session", timedelta(hours=24), 0, TimeLabel.RELATIVE),
    TierRule(Tier.YESTERDAY, "## Yesterday", timedelta(days=7), 1, TimeLabel.NONE),
    TierRule(Tier.WEEK, "## This Week", timedelta(days=14), 2, TimeLabel.WEEKDAYS),
)
_RULES: dict[Tier, TierRule] = {rule.tier: rule for rule in TIER_TABLE}

TIERS_YOUNG_TO_OLD: tuple[Tier, ...] = tuple(rule.tier for rule in sorted(TIER_TABLE, key=lambda r: r.order))
YOUNGEST_TIER: Tier = TIERS_YOUNG_TO_OLD[0]
OLDEST_TIER: Tier = TIERS_YOUNG_TO_OLD[-1]
KEEP_FOR: timedelta = _RULES[OLDEST_TIER].max_age
"""Nothing that ended longer ago than this stays in a summary."""
KEEP_FOR_DAYS: int = KEEP_FOR.days


def tier_rule(tier: Tier) -> TierRule:
    return _RULES[tier]


def min_age(tier: Tier) -> timedelta:
    """The age an item must exceed to belong to `tier` (zero for the youngest)."""
    order = _RULES[tier].order
    return timedelta(0) if order == 0 else _RULES[TIERS_YOUNG_TO_OLD[order - 1]].max_age


def tier_for(age: timedelta) -> Tier | None:
    """The tier of an item that ended `age` ago; None once it is past keeping."""
    for tier in TIERS_YOUNG_TO_OLD:
        if age <= _RULES[tier].max_age:
            return tier
    return None


def describe_tiers() -> str:
    """ "session -> yesterday after 24 h, -> week after 7 days, dropped after 14 days" """
    parts = [TIERS_YOUNG_TO_OLD[0].value]
    for younger, older in pairwise(TIERS_YOUNG_TO_OLD):
        parts.append(f"-> {older.value} after {_span(_RULES[younger].max_age)}")
    parts.append(f"dropped after {_span(KEEP_FOR)}")
    return ", ".join(parts)


def _span(delta: timedelta) -> str:
    if delta.days and not delta.seconds:
        return f"{delta.days} days" if delta.days != 1 else "24 h"
    return f"{int(delta.total_seconds() // 3600)} h"
