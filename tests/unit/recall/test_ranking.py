"""Recall's pure parts: the question's words, the ranking (rare words first), snippets and time filters."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from summarizer.domain.recall import (
    MAX_TERMS,
    InvalidQuery,
    TermHits,
    check_kinds,
    parse_when,
    query_terms,
    snippet,
)
from summarizer.domain.recall_rank import rank

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def test_query_terms_are_lowercased_words_without_common_english_words_or_repeats() -> None:
    assert query_terms("What did we decide about the refresh-token GRACE window? grace!") == (
        "decide",
        "refresh",
        "token",
        "grace",
        "window",
    )
    assert query_terms("src/auth/rotation.py") == ("src", "auth", "rotation", "py")
    assert query_terms("über café") == ("über", "café")


def test_a_question_of_common_words_only_is_refused_clearly() -> None:
    with pytest.raises(InvalidQuery, match="no searchable word"):
        query_terms("what is it, and was it there?")
    with pytest.raises(InvalidQuery, match="at most 1000"):
        query_terms("x" * 1001)


@given(st.text(max_size=300))
def test_any_text_gives_bounded_terms_or_a_clear_refusal(text: str) -> None:
    try:
        terms = query_terms(text)
    except InvalidQuery:
        return
    assert 1 <= len(terms) <= MAX_TERMS
    assert all(t and t == t.lower() and t.isalnum() for t in terms)


def test_a_rare_word_outweighs_a_common_one() -> None:
    common = [(x, x * 10, 30) for x in range(100, 190)]
    found = TermHits(messages=1000, hits={"answer": common, "grace": [(42, 420, 30)]})
    ranked = rank(found)
    assert ranked[0].exchange_id == 42
    assert ranked[0].terms == ("grace",)
    # An exchange holding both words beats one holding the rare word alone.
    both = TermHits(
        messages=1000, hits={"answer": [*common, (42, 421, 30)], "grace": [(42, 420, 30), (7, 70, 30)]}
    )
    top = rank(both)
    assert [r.exchange_id for r in top[:2]] == [42, 7]
    assert top[0].seqs[0] == 420


def test_a_short_message_outranks_a_long_one_holding_the_same_words() -> None:
    found = TermHits(
        messages=500,
        hits={"sessions": [(5, 50, 2000), (9, 90, 25)], "policy": [(5, 51, 2000), (9, 90, 25)]},
    )
    assert [r.exchange_id for r in rank(found)] == [9, 5]


def test_ties_put_the_newer_exchange_first_and_words_in_question_order() -> None:
    found = TermHits(
        messages=100, hits={"deploy": [(3, 30, 10), (9, 90, 10)], "rollback": [(3, 31, 10), (9, 91, 10)]}
    )
    ranked = rank(found)
    assert [r.exchange_id for r in ranked] == [9, 3]
    assert ranked[0].terms == ("deploy", "rollback")


def test_no_hits_rank_nothing() -> None:
    assert rank(TermHits(messages=0, hits={"grace": []})) == []


def test_a_snippet_centres_on_the_first_matching_word() -> None:
    text = "alpha " * 100 + "the rotation grace period is thirty seconds " + "omega " * 100
    cut = snippet(text, ["grace"], width=80)
    assert "grace period" in cut
    assert cut.startswith("…")
    assert cut.endswith("…")
    assert len(cut) <= 82
    assert snippet("short   text\nhere", ["x"]) == "short text here"
    # A stemmed match: "decided" is found by the question word "decide".
    assert "decided" in snippet("z " * 200 + "we decided to ship" + " z" * 200, ["decide"], width=40)


def test_time_filters_take_iso_times_or_durations_ago() -> None:
    assert parse_when("7d", NOW) == NOW - timedelta(days=7)
    assert parse_when("2026-11-02", NOW) == datetime(2026, 11, 2, tzinfo=UTC)
    assert parse_when("2026-11-02T09:30:00Z", NOW) == datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
    with pytest.raises(InvalidQuery, match="since: expected an ISO 8601 time"):
        parse_when("last tuesday", NOW, name="since")


def test_unknown_message_kinds_are_named() -> None:
    assert check_kinds(["user", "user", "tool_result"]) == ("user", "tool_result")
    with pytest.raises(InvalidQuery, match="unknown message kind 'robot'"):
        check_kinds(["robot"])
