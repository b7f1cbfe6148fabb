"""The structured summary: items with a tier, a time span and provenance, and pinned items kept word for
word. Markdown is only a rendering.

The `items` column holds both: the items, then one entry per pin (an entry with a `pin` key: its name).
A pin is never shown to the model as an item, so no update, merge, aging pass or cap can change it.

Datetimes are kept timezone-aware; a naive one (SQLite hands those back) is read as UTC so that ages and
weekday labels never depend on the machine's local zone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Any

from summarizer.engine.tiers import TIERS_YOUNG_TO_OLD as TIERS_YOUNG_TO_OLD
from summarizer.engine.tiers import Tier as Tier


class Importance(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"

    @property
    def rank(self) -> int:
        """0 for high; emergency truncation drops the largest rank first."""
        return _IMPORTANCE_RANK[self]


_IMPORTANCE_RANK: dict[Importance, int] = {Importance.HIGH: 0, Importance.MEDIUM: 1, Importance.LOW: 2}

# Enum lookup by value through a dict: calling the enum class costs several times more, for every stored
# item read back. An unknown value still goes through the class, for its error message.
_TIER_BY_VALUE: dict[str, Tier] = {tier.value: tier for tier in Tier}
_IMPORTANCE_BY_VALUE: dict[str, Importance] = {level.value: level for level in Importance}

_DIGITS = re.compile(r"\d+")

ITEM_KEYS: frozenset[str] = frozenset(
    {"id", "tier", "text", "started_at", "ended_at", "source_tokens", "importance", "exchange_ids"}
)


def as_utc(moment: datetime) -> datetime:
    """An aware datetime; naive input is taken to be UTC."""
    if moment.tzinfo is UTC:  # the usual case, and the engine asks hundreds of times per update
        return moment
    if moment.tzinfo is None or moment.utcoffset() is None:
        return moment.replace(tzinfo=UTC)
    return moment


def _parse_datetime(value: object, key: str) -> datetime:
    if isinstance(value, datetime):
        return as_utc(value)
    if not isinstance(value, str):
        raise ValueError(f"{key}: expected an ISO-8601 string, got {value!r}")
    return as_utc(datetime.fromisoformat(value))


def _parse_date(value: object) -> date | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value))


@dataclass(frozen=True, slots=True)
class SummaryItem:
    id: str
    tier: Tier
    text: str
    started_at: datetime
    ended_at: datetime
    source_tokens: int
    importance: Importance
    exchange_ids: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "started_at", as_utc(self.started_at))
        object.__setattr__(self, "ended_at", as_utc(self.ended_at))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tier": self.tier.value,
            "text": self.text,
            "started_at": self.started_at.isoformat(),
            "ended_at": self.ended_at.isoformat(),
            "source_tokens": self.source_tokens,
            "importance": self.importance.value,
            "exchange_ids": list(self.exchange_ids),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SummaryItem:
        missing = ITEM_KEYS - data.keys()
        if missing:
            raise ValueError(f"summary item lacks {sorted(missing)}")
        return cls(
            id=str(data["id"]),
            tier=_TIER_BY_VALUE.get(data["tier"]) or Tier(data["tier"]),
            text=str(data["text"]),
            started_at=_parse_datetime(data["started_at"], "started_at"),
            ended_at=_parse_datetime(data["ended_at"], "ended_at"),
            source_tokens=int(data["source_tokens"]),
            importance=_IMPORTANCE_BY_VALUE.get(data["importance"]) or Importance(data["importance"]),
            exchange_ids=tuple(int(x) for x in data["exchange_ids"]),
        )


NOW_PIN = "Now"
"""The name of the pin every update refreshes with the user's latest request and open todo list."""


@dataclass(frozen=True, slots=True)
class Pin:
    """Text kept word for word at the head of the summary, under its name."""

    name: str
    text: str
    pinned_at: datetime
    pinned_by: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "pinned_at", as_utc(self.pinned_at))

    def to_dict(self) -> dict[str, Any]:
        return {
            "pin": self.name,
            "text": self.text,
            "pinned_at": self.pinned_at.isoformat(),
            "pinned_by": self.pinned_by,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Pin:
        return cls(
            name=str(data["pin"]),
            text=str(data["text"]),
            pinned_at=_parse_datetime(data["pinned_at"], "pinned_at"),
            pinned_by=str(data.get("pinned_by") or ""),
        )


@dataclass(frozen=True, slots=True)
class Summary:
    agent_id: str
    version: int = 0
    items: tuple[SummaryItem, ...] = field(default_factory=tuple)
    covered_through_exchange_id: int | None = None
    token_count: int = 0
    updated_at: datetime | None = None
    last_aged_on: date | None = None
    pins: tuple[Pin, ...] = field(default_factory=tuple)
    """In the order they show: the "Now" pin first, then the others oldest first."""

    def __post_init__(self) -> None:
        if self.updated_at is not None:
            object.__setattr__(self, "updated_at", as_utc(self.updated_at))

    @classmethod
    def empty(cls, agent_id: str) -> Summary:
        """Version 0: what an agent has before its first update; never stored."""
        return cls(agent_id=agent_id)

    def with_items(self, items: Iterable[SummaryItem]) -> Summary:
        return replace(self, items=tuple(items))

    def items_to_json(self) -> list[dict[str, Any]]:
        """The `items` column: a JSON list of item dicts, then one dict per pin."""
        return [item.to_dict() for item in self.items] + [pin.to_dict() for pin in self.pins]

    def pin(self, name: str) -> Pin | None:
        return next((p for p in self.pins if p.name == name), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "version": self.version,
            "items": self.items_to_json(),
            "covered_through_exchange_id": self.covered_through_exchange_id,
            "token_count": self.token_count,
            "updated_at": self.updated_at.isoformat() if self.updated_at else None,
            "last_aged_on": self.last_aged_on.isoformat() if self.last_aged_on else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Summary:
        updated = data.get("updated_at")
        aged = data.get("last_aged_on")
        covered = data.get("covered_through_exchange_id")
        return cls(
            agent_id=str(data["agent_id"]),
            version=int(data.get("version", 0)),
            items=items_from_json(data.get("items") or []),
            pins=pins_from_json(data.get("items") or []),
            covered_through_exchange_id=None if covered is None else int(covered),
            token_count=int(data.get("token_count", 0)),
            updated_at=None if updated is None else _parse_datetime(updated, "updated_at"),
            last_aged_on=None
            if aged is None
            else (aged if isinstance(aged, date) else date.fromisoformat(aged)),
        )


def items_from_json(data: Iterable[Mapping[str, Any]]) -> tuple[SummaryItem, ...]:
    """Reads the items of the `items` column back (its pins are `pins_from_json`'s)."""
    return tuple(SummaryItem.from_dict(entry) for entry in data if "pin" not in entry)


def pins_from_json(data: Iterable[Mapping[str, Any]]) -> tuple[Pin, ...]:
    """Reads the pins of the `items` column back, in their stored order."""
    return tuple(Pin.from_dict(entry) for entry in data if "pin" in entry)


def id_sort_key(item_id: str) -> tuple[int, ...]:
    """The numbers in an item id, so that "x2" sorts before "x10" and "x12.2" after "x12"."""
    return tuple(int(n) for n in _DIGITS.findall(item_id))


def time_order_key(item: SummaryItem) -> tuple[datetime, datetime, tuple[int, ...], tuple[int, ...], str]:
    """The summary's order: by time, ties by the numeric exchange ids (x2 before x10), then by id."""
    return (item.started_at, item.ended_at, tuple(sorted(item.exchange_ids)), id_sort_key(item.id), item.id)


def in_time_order(items: Iterable[SummaryItem]) -> list[SummaryItem]:
    return sorted(items, key=time_order_key)


def make_item_id(exchange_ids: Iterable[int], taken: set[str]) -> str:
    """A deterministic id from the covered exchanges ("x12", "x12-15"), suffixed when already taken.

    The id is added to `taken`, so a caller that assigns ids in a fixed order gets the same ids every time.
    """
    ids = sorted(set(exchange_ids))
    base = "x0" if not ids else f"x{ids[0]}" if ids[0] == ids[-1] else f"x{ids[0]}-{ids[-1]}"
    candidate = base
    n = 2
    while candidate in taken:
        candidate = f"{base}.{n}"
        n += 1
    taken.add(candidate)
    return candidate
