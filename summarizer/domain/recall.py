"""Recall: the words of a question, the values a search returns, snippets and time filters.

The database finds, for each word of the question, the agent's messages that hold it (its own full-text
engine: PostgreSQL `tsvector`, SQLite FTS5; both stem English words), reading at most `TERM_CAP` of them
per word. Everything else is here and the same on every database:

- the question's words: letters and digits, lower-cased, without common English words, at most
  `MAX_TERMS` of them (`query_terms`);
- the score of an exchange (`domain/recall_rank.py`): BM25 weights of the words its messages hold, its
  neighbours' words at a discount, and a boost for the time the question names (`domain/recall_time.py`);
- the snippet: the stretch of the best matching message around its first matching word.

Reading a bounded number of matches per word keeps a query's cost flat in the length of the agent's
history: a word held by more than `TERM_CAP` messages is common enough that its weight is small, and only
the first `TERM_CAP` of its matches count.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from summarizer.domain.alert_rules import parse_duration
from summarizer.domain.errors import SummarizerError
from summarizer.domain.kinds import Kind

MAX_TERMS = 16
TERM_CAP = 1000
"""Matching messages read per word of the question."""
MAX_QUERY_CHARS = 1000
MAX_LIMIT = 50
SNIPPET_CHARS = 240

_WORD = re.compile(r"[^\W_]+")

STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
    ]
)


class InvalidQuery(SummarizerError, ValueError):
    """A recall question that cannot be searched (empty, only common words, too long, bad filters)."""


@dataclass(frozen=True, slots=True)
class RecallFilter:
    """Which messages a search looks at: a time range (start inclusive, end exclusive) and message kinds."""

    since: datetime | None = None
    until: datetime | None = None
    kinds: tuple[str, ...] = ()
    timed: bool = False
    """Return the matching messages' times too (`TermHits.times`, `TermHits.latest`): the question names a
    time."""


@dataclass(frozen=True, slots=True)
class TermHits:
    """What the store found: the agent's stored message count, and per word the (exchange id, message seq,
    message tokens) of its matching messages, at most `TERM_CAP` each."""

    messages: int
    hits: Mapping[str, Sequence[tuple[int, int, int]]]
    times: Mapping[int, int] = field(default_factory=dict)
    """When the filter asked for them (`RecallFilter.timed`): each matching message's time (seq -> Unix
    seconds)."""
    latest: datetime | None = None
    """When the filter asked for it: the time of the agent's newest message (what "last May" is read
    against)."""


@dataclass(frozen=True, slots=True)
class Ranked:
    exchange_id: int
    score: float
    terms: tuple[str, ...]
    seqs: tuple[int, ...]
    """The exchange's matching messages, best first."""


@dataclass(frozen=True, slots=True)
class Snippet:
    seq: int
    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class RecallHit:
    exchange_id: int
    score: float
    started_at: datetime
    ended_at: datetime
    title: str
    state: str
    """Where the exchange stands: `in_window`, `waiting`, `summarized` or `dropped` (the provenance ledger)."""
    matched: tuple[str, ...]
    snippets: tuple[Snippet, ...]
    item_id: str | None = None
    version: int | None = None
    reason: str | None = None
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class RecallPage:
    agent_id: str
    query: str
    terms: tuple[str, ...]
    total: int
    """Matching exchanges found (a lower bound when `capped`)."""
    capped: bool
    """Some word matched more than `TERM_CAP` messages: only that many of them were read."""
    offset: int
    limit: int
    hits: tuple[RecallHit, ...] = field(default_factory=tuple)


def query_terms(text: str) -> tuple[str, ...]:
    """The searchable words of a question, in order, without repeats; `InvalidQuery` when there are none."""
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidQuery(
            f"the query is {len(text)} characters long; at most {MAX_QUERY_CHARS} are searched"
        )
    words: list[str] = []
    for word in _WORD.findall(text.lower()):
        if word not in STOP_WORDS and word not in words and len(word) <= 100:
            words.append(word)
    if not words:
        raise InvalidQuery(
            "the query holds no searchable word (letters or digits that are not a common English word)"
        )
    return tuple(words[:MAX_TERMS])


def check_kinds(kinds: Sequence[str]) -> tuple[str, ...]:
    names = {k.value for k in Kind}
    unknown = [k for k in kinds if k not in names]
    if unknown:
        raise InvalidQuery(
            f"unknown message kind {unknown[0]!r} (expected one of: {', '.join(sorted(names))})"
        )
    return tuple(dict.fromkeys(kinds))


def snippet(text: str, terms: Sequence[str], width: int = SNIPPET_CHARS) -> str:
    """The stretch of `text` (whitespace folded) around the first word that matches a term, with `…`
    where it was cut."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    start = _first_match(flat, terms)
    begin = max(0, min(start - width // 3, len(flat) - width))
    piece = flat[begin : begin + width]
    return ("…" if begin > 0 else "") + piece + ("…" if begin + width < len(flat) else "")


def _first_match(flat: str, terms: Sequence[str]) -> int:
    """Where the first word sharing a term's stem starts (a crude stem: all but the last two letters of a
    long term), 0 when none does."""
    stems = [t if len(t) <= 5 else t[: len(t) - 2] for t in terms]
    for match in _WORD.finditer(flat.lower()):
        if any(match.group().startswith(stem) for stem in stems):
            return match.start()
    return 0


def parse_when(text: str, now: datetime, *, name: str = "time") -> datetime:
    """A time filter, the one reading of `since`/`until` every front end uses: an ISO 8601 date or time
    (its UTC offset honoured, `Z` for UTC, UTC when it names no zone), or a duration meaning that long
    before `now` (`7d`, `36h`, `90m`). The answer is always in UTC, so both databases compare alike."""
    value = text.strip()
    try:
        ago = timedelta(seconds=parse_duration(value))
    except ValueError:
        pass
    else:
        try:
            return utc_filter(now - ago, name)
        except OverflowError:
            raise InvalidQuery(f"{name}: {text!r} reaches before the year 1") from None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise InvalidQuery(
            f"{name}: expected an ISO 8601 time (2026-11-02 or 2026-11-02T09:30:00Z) or a duration such as "
            f"7d, got {text!r}"
        ) from None
    return utc_filter(parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC), name)


def utc_filter(when: datetime, name: str = "time") -> datetime:
    """A time filter in UTC; `InvalidQuery` for a naive datetime (its zone unknown) or one whose UTC time
    falls outside the years 1 to 9999."""
    if when.tzinfo is None or when.utcoffset() is None:
        raise InvalidQuery(f"{name}: a datetime without a time zone; give an aware one (tzinfo=UTC)")
    try:
        return when.astimezone(UTC)
    except OverflowError:
        raise InvalidQuery(f"{name}: {when.isoformat()} is outside the years 1 to 9999 in UTC") from None
