"""Text wrapped in tags (`<tool_call>...</tool_call>`), found in time linear in the text's length.

A lazy regex (`<t>(.*?)</t>`) tries every opening to the end of the text when the closing is missing, so
a text of many unclosed tags costs its length times its tags (minutes for a megabyte of hostile input).
Here the closings are indexed once and each opening looks its closing up.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    name: str
    start: int
    """Where the opening tag starts."""
    body_start: int
    body_end: int
    end: int
    """Where the closing tag ends."""


def tag_spans(text: str, names: Iterable[str]) -> list[Span]:
    """The `<name>...</name>` spans of the text, left to right and not overlapping: each opening runs to
    the first closing of its name after it; an opening without one is skipped."""
    alternatives = "|".join(re.escape(n) for n in names)
    closings: dict[str, list[int]] = {}
    for closing in re.finditer(rf"</({alternatives})>", text):
        closings.setdefault(closing.group(1), []).append(closing.start())
    spans: list[Span] = []
    opening = re.compile(rf"<({alternatives})>")
    pos = 0
    while (found := opening.search(text, pos)) is not None:
        name = found.group(1)
        places = closings.get(name, [])
        index = bisect.bisect_left(places, found.end())
        if index == len(places):
            pos = found.end()
            continue
        close = places[index]
        spans.append(Span(name, found.start(), found.end(), close, close + len(name) + 3))
        pos = close + len(name) + 3
    return spans


def without_spans(text: str, spans: list[Span]) -> str:
    """The text with the spans taken out."""
    kept, pos = [], 0
    for span in spans:
        kept.append(text[pos : span.start])
        pos = span.end
    kept.append(text[pos:])
    return "".join(kept)
