"""The time a recall question names, read against the end of the agent's history."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from summarizer.domain.recall_time import TimeSpan, read_time

END = datetime(2023, 10, 20, 15, 30, tzinfo=UTC)  # a Friday


def _day(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("What setback did Melanie face in October 2023?", _day(2023, 10, 1), _day(2023, 11, 1)),
        ("What did she show on October 13, 2023?", _day(2023, 10, 13), _day(2023, 10, 14)),
        ("What did Gina find on 1 February, 2023?", _day(2023, 2, 1), _day(2023, 2, 2)),
        ("the deploy of 2023-07-07", _day(2023, 7, 7), _day(2023, 7, 8)),
        ("which cache did we pick last May?", _day(2023, 5, 1), _day(2023, 6, 1)),
        ("camping in June", _day(2023, 6, 1), _day(2023, 7, 1)),
        ("the outage in December", _day(2022, 12, 1), _day(2023, 1, 1)),
        ("what broke in 2022?", _day(2022, 1, 1), _day(2023, 1, 1)),
        ("the trip last year", _day(2022, 1, 1), _day(2023, 1, 1)),
        ("the fix last month", _day(2023, 9, 1), _day(2023, 10, 1)),
        ("the plan last week", _day(2023, 10, 9), _day(2023, 10, 16)),
        ("the hike last weekend", _day(2023, 10, 14), _day(2023, 10, 16)),
        ("what did we try yesterday?", _day(2023, 10, 19), _day(2023, 10, 20)),
        ("the bug two weeks ago", _day(2023, 10, 3), _day(2023, 10, 10)),
        ("3 days ago", _day(2023, 10, 16), _day(2023, 10, 19)),
    ],
)
def test_a_named_time_is_read_against_the_end_of_the_history(
    question: str, start: datetime, end: datetime
) -> None:
    phrase = read_time(question)
    assert phrase is not None
    assert phrase.span(END) == TimeSpan(start, end)


@pytest.mark.parametrize(
    "question",
    [
        "what did we decide about the refresh-token grace window?",
        "How long ago was Caroline's 18th birthday?",  # "long ago" names no time
        "what may we change recently?",  # "may" the verb, "recently" too vague
        "the trip before the wedding",  # a time relative to an event is not read
    ],
)
def test_a_question_naming_no_time_reads_none(question: str) -> None:
    assert read_time(question) is None


def test_a_date_that_does_not_exist_gives_no_span() -> None:
    phrase = read_time("what happened on 31 February 2023?")
    assert phrase is not None
    assert phrase.span(END) is None


@given(st.text(max_size=200), st.datetimes(timezones=st.just(UTC)))
def test_any_text_reads_as_a_well_formed_span_or_none(text: str, end: datetime) -> None:
    phrase = read_time(text)
    if phrase is None:
        return
    span = phrase.span(end)
    assert span is None or span.start < span.end
