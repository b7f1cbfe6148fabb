"""Identifiers fitted to their 200-character columns: a long one becomes its first characters, `~` and 16
hex digits of its SHA-256, exactly 200 characters, the same every time and different for different ids;
one that fits, and a message whose identifiers all fit, are left as they are."""

from __future__ import annotations

import hashlib

import pytest

from summarizer.domain.identifiers import MAX_IDENTIFIER_CHARS, fit_identifier, fit_identifiers
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage

LONG = "toolu_" + "q" * 300


@pytest.mark.parametrize("length", [201, 202, 306, 10_000])
def test_a_long_identifier_is_fitted_to_exactly_200_characters(length: int) -> None:
    value = "".join(chr(ord("a") + i % 26) for i in range(length))
    fitted = fit_identifier(value)
    assert len(fitted) == MAX_IDENTIFIER_CHARS == 200
    kept, digest = fitted.rsplit("~", 1)
    assert kept == value[:183]
    assert digest == hashlib.sha256(value.encode()).hexdigest()[:16]


def test_a_non_ascii_identifier_is_fitted_by_characters() -> None:
    value = "é" * 150 + "🙂" * 100  # 250 characters, far more bytes
    fitted = fit_identifier(value)
    assert len(fitted) == 200
    assert fitted.startswith("é" * 150 + "🙂" * 33 + "~")


def test_fitting_is_deterministic() -> None:
    assert fit_identifier(LONG) == fit_identifier("toolu_" + "q" * 300)


def test_distinct_long_identifiers_stay_distinct_though_they_share_their_first_characters() -> None:
    first, second = LONG + "a", LONG + "b"
    assert first[:183] == second[:183]
    assert fit_identifier(first) != fit_identifier(second)
    assert fit_identifier(first) != fit_identifier(LONG)


@pytest.mark.parametrize("value", ["", "toolu_01", "x" * 199, "x" * 200, "é" * 200])
def test_an_identifier_that_fits_is_left_as_it_is(value: str) -> None:
    assert fit_identifier(value) is value


def test_a_message_whose_identifiers_fit_is_returned_as_is() -> None:
    short = NewMessage(Kind.TOOL_CALL, "", tool_call_id="c" * 200, name="Bash", input={}, host_id="h1")
    assert fit_identifiers(short) is short
    bare = NewMessage(Kind.USER, "hello")
    assert fit_identifiers(bare) is bare


def test_each_long_identifier_of_a_message_is_fitted_and_nothing_else_changes() -> None:
    message = NewMessage(
        Kind.TOOL_CALL,
        "content",
        tool_call_id=LONG,
        name="n" * 250,
        input={"cmd": "ls"},
        host_id="h" * 201,
        continues_exchange=True,
        where="log.jsonl:2",
    )
    fitted = fit_identifiers(message)
    assert fitted.tool_call_id == fit_identifier(LONG)
    assert fitted.name == fit_identifier("n" * 250)
    assert fitted.host_id == fit_identifier("h" * 201)
    assert all(len(v) == 200 for v in (fitted.tool_call_id, fitted.name, fitted.host_id) if v is not None)
    assert (fitted.kind, fitted.content, fitted.input, fitted.continues_exchange, fitted.where) == (
        message.kind,
        message.content,
        message.input,
        message.continues_exchange,
        message.where,
    )


def test_only_the_long_identifier_changes_when_the_others_fit_or_are_absent() -> None:
    result = NewMessage(Kind.TOOL_RESULT, "ok", tool_call_id=LONG)
    fitted = fit_identifiers(result)
    assert fitted is not result
    assert fitted.tool_call_id == fit_identifier(LONG)
    assert (fitted.name, fitted.host_id) == (None, None)
    named = NewMessage(Kind.TOOL_CALL, "", tool_call_id="c1", name="t" * 300, host_id="h1")
    assert (fit_identifiers(named).tool_call_id, fit_identifiers(named).host_id) == ("c1", "h1")
