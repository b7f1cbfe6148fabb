"""Recall's ranking: one function for every database, so SQLite and PostgreSQL order the same hits alike.

The store finds, per word of the question, the agent's messages that hold it (`TermHits`); the order is
decided here:

- **A message's weight for a word** is BM25 with the word counted once: the word's inverse document
  frequency among the agent's messages, raised to `IDF_POWER` (a word in a few messages counts far more
  than one in thousands, so names, numbers and rare words lead), lowered for messages longer than the
  average match (`B` is mild: in a conversation the answer is often a long turn). A word's matches
  include those of its irregular forms (`domain/recall_forms.py`).
- **An exchange** takes, per word, its best message's weight, and also its neighbours' words at a
  discount: the previous exchange's at `BEFORE`, the next one's at `AFTER` (a question asked at the end of
  one exchange is answered at the start of the next, so the words of a question are often split across
  the two). Its score is the sum over words of the best of the three. Only exchanges that hold a word of
  the question themselves are ranked.
- **A time the question names** ("in July 2023", "last May", `domain/recall_time.py`) multiplies the
  score of the exchanges with a matching message in that time by `TIME_BOOST`. A boost, not a filter:
  what the question dates is often said a little later than it happened.
- Ties go to the newer exchange.

On LoCoMo (`benchmarks/locomo_recall_bench.py`) the neighbours' words and the time boost are what lift
recall above a plain BM25; the parameters were set there (docs/benchmarks.md has the figures and what did
not help).
"""

from __future__ import annotations

import heapq
import math

from summarizer.domain.recall import Ranked, TermHits
from summarizer.domain.recall_time import TimeSpan

K1 = 1.2
B = 0.3
BEFORE = 0.6
"""How much the previous exchange's words count toward an exchange."""
AFTER = 0.4
"""How much the next exchange's words count toward an exchange."""
TIME_BOOST = 2.0
IDF_POWER = 1.5
"""Rare words lead more than BM25 lets them: the inverse document frequency is raised to this power."""


def rank(found: TermHits, span: TimeSpan | None = None) -> list[Ranked]:
    """Every exchange that holds a word of the question, best first (`rank_page` over all of them)."""
    return rank_page(found, 0, None, span)[1]


def rank_page(
    found: TermHits, offset: int, limit: int | None, span: TimeSpan | None = None
) -> tuple[int, list[Ranked]]:
    """How many exchanges hold a word of the question, and those from `offset` on (at most `limit`), best
    first. `span`: the time the question names (its exchanges are boosted; `found.times` must hold the
    matching messages' times)."""
    per_term, by_message, exchange_of = _weights(found)
    totals = _totals(per_term)
    if span is not None:
        for x in _in_span(found, span, exchange_of):
            totals[x] *= TIME_BOOST
    order = ((-round(total, 4), -x) for x, total in totals.items())  # best first, newer on a tie
    best = sorted(order) if limit is None else heapq.nsmallest(offset + limit, order)
    page = [(-score, -x) for score, x in best[offset:]]
    shown = {exchange_id for _, exchange_id in page}
    messages: dict[int, list[int]] = {}
    for seq, exchange_id in exchange_of.items():
        if exchange_id in shown:
            messages.setdefault(exchange_id, []).append(seq)
    return len(totals), [
        Ranked(
            exchange_id,
            score,
            tuple(term for term, held in per_term.items() if exchange_id in held),
            tuple(sorted(messages[exchange_id], key=lambda s: (-by_message[s], s))),
        )
        for score, exchange_id in page
    ]


def _weights(found: TermHits) -> tuple[dict[str, dict[int, float]], dict[int, float], dict[int, int]]:
    """Per word (in the question's order), each exchange's best message weight; per message, its summed
    weight; each message's exchange."""
    total = max(found.messages, 1)
    lengths = [tokens for hits in found.hits.values() for _, _, tokens in hits]
    average = max(sum(lengths) / len(lengths), 1.0) if lengths else 1.0
    damp = K1 * B / average
    base = 1 + K1 * (1 - B)
    per_term: dict[str, dict[int, float]] = {}
    by_message: dict[int, float] = {}
    exchange_of: dict[int, int] = {}
    for term, hits in found.hits.items():
        if not hits:
            continue
        n = len(hits)
        top = math.log(1 + (total - n + 0.5) / (n + 0.5)) ** IDF_POWER * (K1 + 1)
        held = per_term[term] = {}
        for exchange_id, seq, tokens in hits:
            weight = top / (base + damp * (tokens if tokens > 1 else 1))
            if weight > held.get(exchange_id, 0.0):
                held[exchange_id] = weight
            by_message[seq] = by_message.get(seq, 0.0) + weight
            exchange_of[seq] = exchange_id
    return per_term, by_message, exchange_of


def _totals(per_term: dict[str, dict[int, float]]) -> dict[int, float]:
    """Each exchange's score: per word, the best of its own weight and its neighbours' discounted ones,
    summed. Each exchange's sum is taken in the question's order of words, whatever order the store listed
    its hits in, so every database gets the same figures."""
    totals: dict[int, float] = {}
    for held in per_term.values():
        for x, weight in held.items():
            totals[x] = totals.get(x, 0.0) + weight
    for held in per_term.values():
        lifted: dict[int, float] = {}
        for x, weight in held.items():
            after, before = x + 1, x - 1  # x is the exchange before `after`, the one after `before`
            if after in totals:
                share = BEFORE * weight
                if share > held.get(after, 0.0) and share > lifted.get(after, 0.0):
                    lifted[after] = share
            if before in totals:
                share = AFTER * weight
                if share > held.get(before, 0.0) and share > lifted.get(before, 0.0):
                    lifted[before] = share
        for y, weight in lifted.items():
            totals[y] += weight - held.get(y, 0.0)
    return totals


def _in_span(found: TermHits, span: TimeSpan, exchange_of: dict[int, int]) -> set[int]:
    start, end = span.start.timestamp(), span.end.timestamp()
    return {exchange_of[seq] for seq, at in found.times.items() if start <= at < end and seq in exchange_of}
