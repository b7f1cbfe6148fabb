"""Markdown rendering of a summary, with times relative to a given `now`.

The rendering is the thing the hard cap counts, so it is built from independent pieces (a header per
non-empty tier, one line per item, separators) whose costs `cap` can add up without rendering again.
Pins come first, under their own heading, each pin's text exactly as it was given; the cap counts them
apart (they are never cut) and leaves the items the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo

from summarizer.engine.model import Pin, Summary, SummaryItem, as_utc, time_order_key
from summarizer.engine.tiers import TIERS_YOUNG_TO_OLD, Tier, TimeLabel, tier_rule

NO_SUMMARY_YET = "_No summary yet: nothing has left the context window._"
SUMMARY_UNAVAILABLE = "[Summary temporarily unavailable]"
RECALL_POINTER = (
    "_Older history, and what this summary left out, is available via recall (search by question)._"
)
"""The line that ends the summary a host sends (outside the items' cap: a fixed 20 tokens or so)."""

PINS_HEADER = "## Pinned (kept word for word)"
TIER_HEADERS: dict[Tier, str] = {tier: tier.heading for tier in TIERS_YOUNG_TO_OLD}
SECTION_SEPARATOR = "\n\n"
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def approx_tokens(n: int) -> str:
    """ "~850 tokens", "~12k tokens": the seed's rough sizes, rounded half up."""
    if n < 1000:
        return f"~{max(n, 0)} tokens"
    return f"~{(n + 500) // 1000}k tokens"


def relative_time(moment: datetime, now: datetime) -> str:
    seconds = (as_utc(now) - as_utc(moment)).total_seconds()
    if seconds < 60:
        return "just now"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes}min ago"
    hours = minutes // 60
    if hours < 24:
        return f"{hours}h ago"
    return f"{hours // 24}d ago"


def day_span(started_at: datetime, ended_at: datetime, zone: tzinfo | None) -> str:
    """ "Mon" or "Mon-Tue", in the zone of the caller's `now`."""
    first = WEEKDAYS[as_utc(started_at).astimezone(zone).weekday()]
    last = WEEKDAYS[as_utc(ended_at).astimezone(zone).weekday()]
    same_day = as_utc(started_at).astimezone(zone).date() == as_utc(ended_at).astimezone(zone).date()
    return first if same_day else f"{first}-{last}"


def item_suffix(item: SummaryItem, now: datetime) -> str:
    size = approx_tokens(item.source_tokens)
    label = tier_rule(item.tier).time_label
    if label is TimeLabel.RELATIVE:
        return f"({relative_time(item.ended_at, now)}, {size})"
    if label is TimeLabel.WEEKDAYS:
        return f"({day_span(item.started_at, item.ended_at, now.tzinfo)}, {size})"
    return f"({size})"


def item_line(number: int, item: SummaryItem, now: datetime) -> str:
    return f"{number}. {item.text} {item_suffix(item, now)}"


def display_key(item: SummaryItem) -> tuple[datetime, datetime, tuple[int, ...], tuple[int, ...], str]:
    """Oldest first within a tier, so each section reads as a history; ties by numeric exchange id."""
    return time_order_key(item)


def display_order(items: Iterable[SummaryItem]) -> list[SummaryItem]:
    return sorted(items, key=display_key)


@dataclass(frozen=True, slots=True)
class Section:
    tier: Tier
    items: tuple[SummaryItem, ...]


def sections(items: Iterable[SummaryItem]) -> list[Section]:
    """Non-empty tiers, youngest first, each in display order."""
    by_tier: dict[Tier, list[SummaryItem]] = {tier: [] for tier in TIERS_YOUNG_TO_OLD}
    for item in items:
        by_tier[item.tier].append(item)
    return [
        Section(tier, tuple(display_order(by_tier[tier]))) for tier in TIERS_YOUNG_TO_OLD if by_tier[tier]
    ]


def render_items(items: Sequence[SummaryItem], now: datetime) -> str:
    """The Markdown for these items; "" when there are none."""
    blocks = []
    for section in sections(items):
        lines = [TIER_HEADERS[section.tier]]
        lines.extend(item_line(n, item, now) for n, item in enumerate(section.items, start=1))
        blocks.append("\n".join(lines))
    return SECTION_SEPARATOR.join(blocks) + "\n" if blocks else ""


def departed_text(summarized: int, waiting: int, dropped: Mapping[str, int]) -> str:
    """The placeholder for a summary with no items, saying how many exchanges left the window and where
    they went (never "nothing has left" when something has)."""
    left = summarized + waiting + sum(dropped.values())
    if left == 0:
        return NO_SUMMARY_YET
    parts = []
    if waiting:
        parts.append(f"{waiting} waiting for the summary worker")
    if summarized:
        parts.append(f"{summarized} summarized")
    if dropped:
        reasons = ", ".join(f"{n} {reason}" for reason, n in sorted(dropped.items()))
        parts.append(f"{sum(dropped.values())} dropped ({reasons})")
    return f"_No summary items yet: {left} exchange(s) left the context window: {'; '.join(parts)}._"


def render_pins(pins: Sequence[Pin]) -> str:
    """The pins' block: its heading, then each pin's name as a heading over its text as given; "" for
    none. Ends with a blank line, so whatever follows starts a section of its own."""
    if not pins:
        return ""
    return SECTION_SEPARATOR.join([PINS_HEADER, *(f"### {pin.name}\n{pin.text}" for pin in pins)]) + "\n\n"


def render_summary(summary: Summary | None, now: datetime) -> str:
    """What a reader shows: the pins, then the items' rendering or the placeholder when there are none."""
    if summary is None:
        return NO_SUMMARY_YET
    body = render_items(summary.items, now) if summary.items else NO_SUMMARY_YET
    return render_pins(summary.pins) + body
