"""Fuzzed input for every format: the reader either returns records or raises InvalidMessage, nothing else."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from summarizer.domain.errors import InvalidMessage
from summarizer.ingest import InputFormat
from tests.unit.ingest.helpers import parse

FORMATS = [f.value for f in InputFormat]
JSON_FORMATS = [f for f in FORMATS if f != "aider"]  # an aider history is Markdown, not JSON
KEYS = [
    "agent",
    "kind",
    "content",
    "role",
    "type",
    "id",
    "tokens",
    "created_at",
    "tool_call_id",
    "name",
    "input",
    "is_error",
    "message",
    "uuid",
    "sessionId",
    "isSidechain",
    "isMeta",
    "subtype",
    "conversations",
    "from",
    "value",
    "call_id",
    "arguments",
    "output",
    "tool_calls",
    "function",
    "tool_use_id",
    "text",
    "timestamp",
    "messages",
    "system",
    "instructions",
]
WORDS = st.sampled_from(
    [
        "user",
        "assistant",
        "system",
        "tool",
        "tool_call",
        "tool_result",
        "message",
        "function_call",
        "function_call_output",
        "text",
        "tool_use",
        "tool_result",
        "human",
        "gpt",
        "function_call",
        "observation",
        "compact_boundary",
        "2025-01-01T00:00:00Z",
        "9999-12-31T23:59:59-23:59",
        "\ud800",
        "\x00",
        "1e400",
        "",
        "/clear",
        '{"name": "f", "arguments": {}}',
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    WORDS,
    st.text(max_size=8),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS), inner, max_size=6)
    ),
    max_leaves=20,
)
OBJECTS = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=8)


def _survives(data: bytes, fmt: str) -> None:
    try:
        records = parse(data, fmt, agent="fuzz")
    except InvalidMessage as exc:
        reason = exc.reason
        if not reason.strip():
            raise AssertionError("an error without a reason") from None
        return
    for record in records:
        json.dumps(record.message.input, allow_nan=False)  # what is stored can be written back as JSON
        record.message.content.encode("utf-8")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fmt=st.sampled_from(FORMATS), objects=st.lists(OBJECTS, min_size=1, max_size=4))
def test_structured_garbage_is_parsed_or_refused(fmt: str, objects: list[dict[str, Any]]) -> None:
    _survives("".join(json.dumps(o) + "\n" for o in objects).encode(), fmt)


@settings(max_examples=150, deadline=None)
@given(fmt=st.sampled_from(FORMATS), data=st.binary(max_size=200))
def test_random_bytes_are_parsed_or_refused(fmt: str, data: bytes) -> None:
    _survives(data, fmt)


@settings(max_examples=50, deadline=None)
@given(
    fmt=st.sampled_from(JSON_FORMATS),
    number=st.sampled_from(["1e400", "-1e400", "1E999", "1234567e308"]),
)
def test_numbers_beyond_a_double_are_refused(fmt: str, number: str) -> None:
    line = '{"agent": "a", "kind": "tool_call", "content": "", "tool_call_id": "c", "name": "n", '
    with pytest.raises(InvalidMessage, match="too large to store"):
        parse((line + f'"input": {number}}}\n').encode(), fmt, agent="a")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    fmt=st.sampled_from(["openai", "anthropic", "responses", "sharegpt"]),
    objects=st.lists(OBJECTS, min_size=1, max_size=4),
)
def test_structured_garbage_in_one_document_is_parsed_or_refused(
    fmt: str, objects: list[dict[str, Any]]
) -> None:
    _survives(json.dumps(objects, indent=1).encode(), fmt)


@pytest.mark.parametrize(
    ("fmt", "document"),
    [
        ("openai", [{"role": "user", "content": "\ud800"}]),
        ("anthropic", [{"role": "user", "content": "\ud800"}]),
        ("responses", {"input": [{"role": "user", "content": "\ud800"}]}),
        ("sharegpt", [{"conversations": [{"from": "human", "value": "\ud800"}]}]),
    ],
)
def test_a_lone_surrogate_inside_a_document_is_refused_with_a_reason(fmt: str, document: object) -> None:
    with pytest.raises(InvalidMessage, match="unpaired surrogate escape in"):
        parse(json.dumps(document).encode(), fmt, agent="a")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("key", ["role", "source", "type", "kind", "status"])
def test_a_list_or_object_where_a_name_belongs_is_parsed_or_refused(fmt: str, key: str) -> None:
    """Values that cannot be looked up in a set of names (found by the fuzz tests above in SWE-agent's
    `role`): every format answers with a record or a reason, never a TypeError."""
    for value in ([], ["user"], {"a": 1}):
        line = {"role": "user", "content": "hi", "kind": "user", "type": "user", "source": "user", key: value}
        _survives((json.dumps([line]) + "\n").encode(), fmt)
        _survives((json.dumps(line) + "\n").encode(), fmt)
