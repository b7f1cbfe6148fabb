"""Tagged spans: the same answers as a lazy regex, in time linear in the text (hostile input of many
unclosed tags took minutes for a megabyte)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from summarizer.ingest.tags import tag_spans, without_spans

LAZY = re.compile(r"<(a|bb)>(.*?)</\1>", re.DOTALL)


@given(st.lists(st.sampled_from(["<a>", "</a>", "<bb>", "</bb>", "x", " ", "<", ">", "/"]), max_size=40))
def test_spans_are_what_a_lazy_regex_finds(pieces: list[str]) -> None:
    text = "".join(pieces)
    spans = tag_spans(text, ["a", "bb"])
    assert [(s.name, text[s.body_start : s.body_end]) for s in spans] == [
        (m.group(1), m.group(2)) for m in LAZY.finditer(text)
    ]
    assert without_spans(text, spans) == LAZY.sub("", text)


@pytest.mark.timeout(60)
def test_a_megabyte_of_unclosed_tags_is_read_in_one_pass() -> None:
    text = "<tool_call>x" * 90_000 + "</tool_call>"
    spans = tag_spans(text, ["tool_call"])
    assert [(s.start, s.end) for s in spans] == [(0, len(text))]  # the first opening, to the one closing
    assert tag_spans("<tool_call>" * 90_000, ["tool_call"]) == []
