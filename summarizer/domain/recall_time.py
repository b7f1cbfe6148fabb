"""Recall: the time a question names ("in July 2023", "on 7 July, 2023", "last May", "two weeks ago").

A question that says when gets the exchanges of that time first (`domain/recall_rank.py` boosts them; it
never filters: a date in a question is often approximate). The words that said it ("july", "2023") are
still searched for: a message that names the date is a good match too.

Relative phrases are read against the end of the agent's history (its newest message), not the wall
clock: "last May" in a conversation that ended in June 2023 is May 2023. Phrases read:
- a day: "7 July 2023", "July 7, 2023", "2023-07-07", "yesterday", "today";
- a month: "July 2023", "in July" / "last July" (the latest July before the end);
- a year: "in 2023", "last year", "this year";
- a span back from the end: "N days/weeks/months/years ago" (a number or a word up to twelve), "last
  week", "last month", "last weekend" ("recently" is too vague to read).
"before the trip" and other times relative to an event are not read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

MONTH_NUMBERS: Mapping[str, int] = {
    name: n + 1
    for n, name in enumerate(
        (
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        )
    )
}
"""English month names, lower case, to their numbers (1-12)."""
_MONTHS = dict(MONTH_NUMBERS)
_MONTHS.update({name[:3]: n for name, n in list(_MONTHS.items()) if name != "may"})
_MONTHS["sept"] = 9
_NUMBERS = {
    word: n + 1
    for n, word in enumerate(
        ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
    )
}
_NUMBERS.update({"a": 1, "an": 1, "couple": 2, "few": 3})
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_PATTERNS = (
    ("day", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b")),
    ("day", re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b")),
    ("day", re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<mon>[01]\d)-(?P<day>[0-3]\d)\b")),
    ("month", re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b")),
    ("ago", re.compile(r"\b(?P<count>\d{1,3}|[a-z]+)\s+(?P<unit>day|week|month|year)s?\s+ago\b")),
    ("last", re.compile(r"\b(?P<which>last|this|past)\s+(?P<unit>week|month|year|weekend)\b")),
    ("month_of", re.compile(rf"\b(?:in|last|during|since|early|late|mid)\s+{_MONTH}\b")),
    ("year", re.compile(rf"\b(?:in|during|of|since)\s+{_YEAR}\b")),
    ("named_day", re.compile(r"\b(?P<which>yesterday|today)\b")),
)


@dataclass(frozen=True, slots=True)
class TimeSpan:
    """A stretch of time a question names: `start` inclusive, `end` exclusive."""

    start: datetime
    end: datetime

    def holds(self, at: datetime) -> bool:
        return self.start <= at < self.end


@dataclass(frozen=True, slots=True)
class TimePhrase:
    """A time the question names, as read before knowing where the history ends."""

    kind: str
    values: tuple[tuple[str, str], ...]

    def span(self, end_of_history: datetime) -> TimeSpan | None:
        """The stretch of time meant, read against the newest message's time; None when it makes no date
        (the 31st of a 30-day month)."""
        v = dict(self.values)
        now = end_of_history.astimezone(UTC)
        try:
            return _span(self.kind, v, now)
        except (ValueError, OverflowError):
            return None


def read_time(question: str) -> TimePhrase | None:
    """The first time phrase of `question` (patterns in the order above), or None."""
    lowered = question.lower()
    for kind, pattern in _PATTERNS:
        match = pattern.search(lowered)
        if match is None:
            continue
        values = {k: v for k, v in match.groupdict().items() if v is not None}
        if kind == "ago" and _count(values["count"]) is None:
            continue
        return TimePhrase(kind, tuple(sorted(values.items())))
    return None


def _count(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    return _NUMBERS.get(word)


def _month(v: dict[str, str]) -> int:
    return int(v["mon"]) if "mon" in v else _MONTHS[v["month"]]


def _month_span(year: int, month: int) -> TimeSpan:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    return TimeSpan(start, end)


def _span(kind: str, v: dict[str, str], now: datetime) -> TimeSpan | None:
    today = datetime(now.year, now.month, now.day, tzinfo=UTC)
    if kind == "day":
        start = datetime(int(v["year"]), _month(v), int(v["day"]), tzinfo=UTC)
        return TimeSpan(start, start + timedelta(days=1))
    if kind == "month":
        return _month_span(int(v["year"]), _month(v))
    if kind == "year":
        return _year_span(int(v["year"]))
    if kind == "month_of":
        month = _month(v)
        return _month_span(now.year if month <= now.month else now.year - 1, month)
    if kind == "named_day":
        start = today - timedelta(days=1 if v["which"] == "yesterday" else 0)
        return TimeSpan(start, start + timedelta(days=1))
    if kind == "ago":
        days = {"day": 1, "week": 7, "month": 30, "year": 365}[v["unit"]] * (_count(v["count"]) or 1)
        middle = today - timedelta(days=days)
        slack = timedelta(days=max(1, days // 4))
        return TimeSpan(middle - slack, middle + slack + timedelta(days=1))
    return _last(v["which"], v["unit"], today)


def _year_span(year: int) -> TimeSpan:
    return TimeSpan(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))


def _last(which: str, unit: str, today: datetime) -> TimeSpan:
    """ "last/this/past week|weekend|month|year", ending `today`."""
    if unit == "year":
        return _year_span(today.year - (1 if which == "last" else 0))
    if which == "past":
        days = 30 if unit == "month" else 7
        return TimeSpan(today - timedelta(days=days), today + timedelta(days=1))
    if unit == "month":
        if which == "this":
            return _month_span(today.year, today.month)
        end_of_last = datetime(today.year, today.month, 1, tzinfo=UTC) - timedelta(days=1)
        return _month_span(end_of_last.year, end_of_last.month)
    if unit == "weekend":
        saturday = today - timedelta(days=(today.weekday() - 5) % 7 or 7)
        return TimeSpan(saturday, saturday + timedelta(days=2))
    monday = today - timedelta(days=today.weekday())
    if which == "this":
        return TimeSpan(monday, today + timedelta(days=1))
    return TimeSpan(monday - timedelta(weeks=1), monday)
