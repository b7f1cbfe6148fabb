"""SUMMARIZER_API_TOKENS: parsing, scopes, and errors that name the entry without printing its secret."""

from __future__ import annotations

import pytest

from summarizer.http.auth import ApiToken, Principal, find_token, parse_api_tokens, scope_notes
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


def test_a_scope_covers_whole_segments_only() -> None:
    folder = Principal("team-a/")
    assert folder.may_see("team-a/x")
    assert folder.may_see("team-a/x/y")
    assert not folder.may_see("team-ab/x")
    exact = Principal("team-a")
    assert exact.may_see("team-a")
    assert not exact.may_see("team-ab")
    assert not exact.may_see("team-a/x")
    assert not exact.may_see("team-")


def test_start_up_names_the_scopes_read_as_exact_agent_ids() -> None:
    notes = scope_notes(parse_api_tokens(f"{A},{B}@team-a/,{'c' * 16}@team-b"))
    assert len(notes) == 1
    assert "entry 3 is scoped to 'team-b'" in notes[0]
    assert "only the agent of exactly that id" in notes[0]
    assert "'team-b/'" in notes[0]
    assert "c" * 16 not in notes[0]
    assert scope_notes(parse_api_tokens(f"{A},{B}@team-a/")) == ()


def test_read_only_tokens_come_after_the_writing_ones() -> None:
    tokens = parse_api_tokens(A, f"{B}@team-a/")
    assert tokens == (ApiToken(A, None), ApiToken(B, "team-a/", writes=False))
    assert parse_api_tokens("", B) == (ApiToken(B, None, writes=False),)
    assert "writes=False" in repr(tokens[1])


@pytest.mark.parametrize(
    ("text", "read_only", "message"),
    [
        (A, "short", "SUMMARIZER_API_READ_TOKENS: entry 1 is a token of 5 characters"),
        (A, f"{B},", "SUMMARIZER_API_READ_TOKENS: entry 2 is empty"),
        (A, f"{B},{A}@x/", "SUMMARIZER_API_READ_TOKENS: entry 2 repeats an earlier token"),
        ("", "", "SUMMARIZER_API_READ_TOKENS adds tokens that may only read"),
    ],
)
def test_bad_read_only_tokens_name_their_setting(text: str, read_only: str, message: str) -> None:
    with pytest.raises(SettingsError) as info:
        parse_api_tokens(text, read_only)
    assert message in str(info.value)
    assert A not in str(info.value)
    assert B not in str(info.value)


def test_start_up_notes_name_the_setting_of_a_read_only_token() -> None:
    notes = scope_notes(parse_api_tokens(f"{A}@team-a", f"{B}@team-b"))
    assert notes[0].startswith("SUMMARIZER_API_TOKENS: entry 1 is scoped to 'team-a'")
    assert notes[1].startswith("SUMMARIZER_API_READ_TOKENS: entry 1 is scoped to 'team-b'")
