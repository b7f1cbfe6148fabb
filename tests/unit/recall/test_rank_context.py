"""Recall's ranking beyond single words: an exchange's neighbours and the time a question names."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from summarizer.domain.recall import TermHits
from summarizer.domain.recall_rank import rank
from summarizer.domain.recall_time import TimeSpan

MAY = TimeSpan(datetime(2023, 5, 1, tzinfo=UTC), datetime(2023, 6, 1, tzinfo=UTC))


def _at(month: int) -> int:
    return int(datetime(2023, month, 10, tzinfo=UTC).timestamp())


def test_an_answer_is_lifted_by_the_question_just_before_it() -> None:
    # Exchange 9 ends with "What's your research about?"; exchange 10 answers "adoption agencies".
    # Exchange 30 mentions adoption alone, with nothing around it about research.
    found = TermHits(
        messages=400,
        hits={
            "research": [(9, 91, 20)],
            "adoption": [(10, 100, 20), (30, 300, 20)],
        },
    )
    ranked = [r.exchange_id for r in rank(found)]
    assert ranked[0] == 10
    assert ranked.index(10) < ranked.index(30)


def test_the_previous_exchange_counts_more_than_the_next() -> None:
    found = TermHits(
        messages=400,
        hits={"painting": [(5, 50, 20), (20, 200, 20)], "sunset": [(4, 40, 20), (21, 210, 20)]},
    )
    ranked = [r.exchange_id for r in rank(found)]
    assert ranked.index(5) < ranked.index(20)


def test_an_exchange_holding_no_word_itself_is_not_ranked() -> None:
    found = TermHits(messages=100, hits={"grace": [(7, 70, 10)]})
    ranked = rank(found)
    assert [r.exchange_id for r in ranked] == [7]
    assert ranked[0].terms == ("grace",)


def test_the_time_a_question_names_puts_its_exchanges_first() -> None:
    found = TermHits(
        messages=100,
        hits={"camping": [(3, 30, 10), (12, 120, 10)]},
        times={30: _at(5), 120: _at(8)},
    )
    assert [r.exchange_id for r in rank(found)] == [12, 3]  # no time named: the newer first
    assert [r.exchange_id for r in rank(found, MAY)] == [3, 12]


def test_a_time_boost_does_not_filter() -> None:
    found = TermHits(
        messages=100,
        hits={"camping": [(3, 30, 10)], "lake": [(12, 120, 10)], "tahoe": [(12, 121, 10)]},
        times={30: _at(5), 120: _at(8), 121: _at(8)},
    )
    assert {r.exchange_id for r in rank(found, MAY)} == {3, 12}


@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=1, max_value=40))
def test_the_order_the_store_lists_hits_in_does_not_change_the_ranking(seed: int, size: int) -> None:
    rng = random.Random(seed)
    hits = {
        word: [(x, x * 10 + rng.randrange(3), rng.randrange(1, 300)) for x in rng.sample(range(1, 60), size)]
        for word in ("alpha", "beta", "gamma")
    }
    shuffled = {word: rng.sample(listed, len(listed)) for word, listed in reversed(hits.items())}
    first = rank(TermHits(messages=600, hits=hits))
    second = rank(TermHits(messages=600, hits={w: shuffled[w] for w in hits}))
    assert [(r.exchange_id, r.score) for r in first] == [(r.exchange_id, r.score) for r in second]
