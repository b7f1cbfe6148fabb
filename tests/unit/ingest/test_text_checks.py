"""The unstorable-text check on parsed values, and the id-setting copy of a message."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.ingest.fields import reject_nul
from summarizer.ingest.problems import Problem

TEXT = st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF), max_size=8)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


def _bad(text: str) -> bool:
    return "\x00" in text or any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def _any_bad(value: object) -> bool:
    if isinstance(value, str):
        return _bad(value)
    if isinstance(value, dict):
        return any(_bad(k) or _any_bad(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_any_bad(v) for v in value)
    return False


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_a_value_is_refused_exactly_when_some_string_in_it_is_unstorable(value: object) -> None:
    if _any_bad(value):
        with pytest.raises(Problem, match=r"NUL byte|unpaired surrogate escape"):
            reject_nul(value)
    else:
        reject_nul(value)


def test_the_refusal_names_where_the_text_is() -> None:
    with pytest.raises(Problem, match=r"^unpaired surrogate escape in input\.argv\[1\]$"):
        reject_nul({"input": {"argv": ["ls", "\ud800"]}})
    with pytest.raises(Problem, match=r"^NUL byte in a key of input$"):
        reject_nul({"input": {"a\x00": 1}})


def test_strings_either_side_of_a_joint_never_make_a_pair() -> None:
    with pytest.raises(Problem, match="unpaired surrogate escape in content"):
        reject_nul({"content": "x\ud83d", "name": "\ude00y"})


def test_with_host_id_is_replace_for_every_field() -> None:
    values = {
        "kind": Kind.TOOL_CALL,
        "content": "c",
        "tool_call_id": "t1",
        "name": "bash",
        "input": {"cmd": "ls"},
        "is_error": False,
        "tokens": 7,
        "created_at": datetime(2026, 1, 1, tzinfo=UTC),
        "host_id": None,
        "continues_exchange": True,
        "where": "f.jsonl:3",
    }
    assert set(values) == {f.name for f in dataclasses.fields(NewMessage)}, (
        "a new field: add it to with_host_id"
    )
    message = NewMessage(**values)  # type: ignore[arg-type]
    assert message.with_host_id("h") == dataclasses.replace(message, host_id="h")
