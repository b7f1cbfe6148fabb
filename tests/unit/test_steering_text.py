"""The rules of steering text, pin names, typed dollar amounts and the pins' share, as pure functions."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from summarizer.domain.steering_text import name_problem, shown, text_problem
from summarizer.domain.usd_text import parse_usd
from summarizer.engine.cap import estimate_text
from summarizer.engine.model import NOW_PIN, Pin
from summarizer.engine.pins import PinLimits, pins_tokens, within_share

AT = datetime(2026, 1, 2, tzinfo=UTC)


@pytest.mark.parametrize(
    "text", ["plain", "two\nlines\tand a tab", "\u00e9t\u00e9 \u2014 \U0001f600", "\u200b"]
)
def test_text_with_newlines_tabs_and_any_unicode_is_kept(text: str) -> None:
    assert text_problem(text) is None


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("ab\ud800", "character 3 (U+D800) is a lone surrogate"),
        ("a\x00", "character 2 (U+0000) is a NUL"),
        ("\x1b[2J", "character 1 (U+001B) is a control"),
        ("over\rwrite", "U+000D"),
        ("del\x7f", "U+007F"),
    ],
)
def test_text_that_is_not_text_names_the_first_bad_character(text: str, says: str) -> None:
    problem = text_problem(text)
    assert problem is not None
    assert says in problem


@pytest.mark.parametrize(
    "name", ["\x1b[31m", "a\rb", "x\u202e", f"{NOW_PIN}\u200b", "\u2028", " a", "a ", ""]
)
def test_names_must_be_printable_without_outer_spaces(name: str) -> None:
    assert name_problem(name) is not None


def test_printable_names_pass_and_others_are_shown_escaped() -> None:
    assert name_problem("deploy rules \u00e9t\u00e9") is None
    assert shown("Now\u200b\x1b[31m\r\ud800") == "Now\\u200b\\x1b[31m\\r\\ud800"
    assert shown("\u00e9t\u00e9") == "\u00e9t\u00e9"


@pytest.mark.parametrize(
    ("typed", "amount"), [("5", "5"), ("0.25", "0.25"), (" $12.50 ", "12.50"), (".5", ".5")]
)
def test_plain_amounts_are_read(typed: str, amount: str) -> None:
    assert parse_usd(typed) == Decimal(amount)


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("5,00", "no digit grouping"),
        ("1,000", "no digit grouping"),
        ("1_000", "no digit grouping"),
        ("-5", "from 0 up"),
        ("NaN", "from 0 up"),
        ("inf", "from 0 up"),
        ("1e3", "at most one decimal point"),
        ("", "at most one decimal point"),
    ],
)
def test_anything_else_is_refused_saying_why(typed: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        parse_usd(typed)


def test_the_first_pinned_pins_that_fit_the_share_are_kept_and_now_stays() -> None:
    pins = (
        Pin(NOW_PIN, "Now: fix the build.", AT, "update"),
        *(Pin(f"p{n}", "word " * 60, AT, "cli") for n in range(1, 4)),
    )
    one = pins_tokens(pins[1:2], estimate_text)
    limits = PinLimits(max_tokens=(one + 10) * 4, share=0.25)  # room for one pin, not two
    kept, left_out = within_share(pins, estimate_text, limits)
    assert [p.name for p in kept] == [NOW_PIN, "p1"]
    assert [p.name for p in left_out] == ["p2", "p3"]
    assert within_share(pins, estimate_text, PinLimits(100_000, 0.25)) == (pins, ())
