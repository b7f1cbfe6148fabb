"""SUMMARIZER_API_TOKENS: parsing, scopes, and errors that name the entry without printing its secret."""

from __future__ import annotations

import pytest

from summarizer.http.auth import ApiToken, Principal, find_token, parse_api_tokens
from summarizer.settings import SettingsError

A = "a" * 16
B = "b" * 20


def test_plain_and_scoped_tokens() -> None:
    tokens = parse_api_tokens(f" {A} , {B}@team-a/ ")
    assert tokens == (ApiToken(A, None), ApiToken(B, "team-a/"))
    assert find_token(tokens, A) == ApiToken(A, None)
    assert find_token(tokens, B) == ApiToken(B, "team-a/")
    assert find_token(tokens, B + "x") is None
    assert find_token(tokens, "") is None


def test_a_scope_may_hold_an_at_sign() -> None:
    assert parse_api_tokens(f"{A}@ops@example/") == (ApiToken(A, "ops@example/"),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "SUMMARIZER_API_TOKENS is empty"),
        ("  ", "SUMMARIZER_API_TOKENS is empty"),
        (f"{A},", "entry 2 is empty"),
        ("short", "entry 1 is a token of 5 characters; use at least 16"),
        (f"{A}@", "entry 1 ends with '@' but names no agent-id prefix"),
        (f"{A},{A}@x", "entry 2 repeats an earlier token"),
        (f"{A} {A}", "entry 1 holds whitespace inside the token"),
    ],
)
def test_bad_token_lists_are_refused(text: str, message: str) -> None:
    with pytest.raises(SettingsError) as info:
        parse_api_tokens(text)
    assert message in str(info.value)
    assert A not in str(info.value)


def test_a_token_never_shows_its_secret() -> None:
    assert A not in repr(ApiToken(A, "x"))


def test_a_scoped_principal_sees_only_its_prefix() -> None:
    scoped = Principal("team-a/")
    assert scoped.may_see("team-a/coder")
    assert not scoped.may_see("team-b/coder")
    assert not scoped.may_see("team-a")
    assert not scoped.is_operator
    assert Principal(None).may_see("anything")
    assert Principal(None).is_operator
