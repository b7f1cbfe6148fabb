"""Which sentences of a turn carry its facts, and which of them fit in a given room.

A sentence scores for what a reader of the summary would want back: names, numbers, dates and times,
decisions, named artifacts (paths, versions, code names), errors and commitments, and its count of
content words; greetings, thanks and bare questions score low. When a turn does not fit its room, the
least informative sentences go first (the later one of two that score the same), and the rest keep their
order, so what is left still reads as the turn. Everything here is one pass over text that is clipped
first, so its cost is linear in the input.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from summarizer.engine.item_text import non_answer
from summarizer.llm.offline.facts import DECISION, clean, cut, names_artifact, sentences

CLIP_CHARS = 3_000
"""How much of one side of an exchange is read for sentences: more could never fit in an item."""
SENTENCE_CHARS = 400
"""A sentence longer than this is cut at a clause before it is scored (a log line, a code block)."""

_NAME = re.compile(r"(?<=[\w,;:] )[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*")
_NUMBER = re.compile(r"\d")
_TIME_WORDS = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|last (?:week|month|year|night|weekend)|next (?:week|month|year)|"
    r"ago|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|"
    r"july|august|september|october|november|december|weekend|summer|winter|spring|autumn)\b",
    re.I,
)
_ERROR_WORDS = re.compile(r"\b(?:error|errors|fail\w*|exception|crash\w*|broke\w*|bug|bugs|timeout)\b", re.I)
_COMMIT_WORDS = re.compile(
    r"\b(?:will|going to|plan\w*|promis\w*|must|need to|want to|decid\w*|agreed|started|finished|"
    r"adopt\w*|bought|moved|joined|graduat\w*|married)\b",
    re.I,
)
_WORD = re.compile(r"[A-Za-z0-9][\w'-]*")
_FILLER = re.compile(
    r"^\W*(?:ok(?:ay)?|sure|thanks|thank you|wow|great|awesome|cool|nice|yeah|yes|no|hi|hey|hello|bye|"
    r"glad|congrats|congratulations|that's (?:great|awesome|amazing|cool|so)|sounds (?:great|good|fun)|"
    r"haha|lol|oh)\b",
    re.I,
)


def score(sentence: str) -> int:
    """How much a sentence says: the higher, the later it is given up."""
    words = _WORD.findall(sentence)
    points = min(len(words) // 5, 3)
    points += min(len(_NAME.findall(sentence)), 3)
    if _NUMBER.search(sentence):
        points += 2
    if _TIME_WORDS.search(sentence):
        points += 2
    if DECISION.search(sentence):
        points += 3
    if names_artifact(sentence):
        points += 2
    if _ERROR_WORDS.search(sentence):
        points += 1
    if _COMMIT_WORDS.search(sentence):
        points += 1
    if _FILLER.match(sentence):
        points -= 2
    if sentence.endswith("?"):
        points -= 1
    if len(words) < 4:
        points -= 2
    return points


def _safe(sentence: str) -> bool:
    """Whether the sentence may stand inside an item: text the gate takes for a refusal or an API error
    anywhere in an item (not only at its start) is left out, so it cannot cost the whole item."""
    return non_answer("Then " + sentence) is None


def turn_sentences(text: str) -> list[str]:
    """The sentences of one side of an exchange, cleaned, each at most SENTENCE_CHARS long. Fenced code
    is left out (the item names what it defines, as artifacts), and a line break ends a sentence (a
    ticket's header lines are not one sentence)."""
    text = "\n".join(text[:CLIP_CHARS].split("```")[0::2])
    suspect = not _safe(text)  # one check of the whole text; sentence by sentence only when it fails
    found = []
    for line in text.splitlines():
        for sentence in sentences(line):
            sentence = clean(sentence)
            if len(sentence) > SENTENCE_CHARS:
                sentence = cut(sentence, SENTENCE_CHARS)
            if sentence and (not suspect or _safe(sentence)):
                found.append(sentence)
    return found


def lead(group: Sequence[str]) -> int | None:
    """The index of the sentence that says what a side is about: the first of three words or more that
    is not a greeting or a thank-you (None when there is none)."""
    for i, sentence in enumerate(group):
        words = len(sentence.split())
        if words >= 3 and not sentence.endswith(":") and not (_FILLER.match(sentence) and words < 7):
            return i
    return None


def fit(
    groups: Sequence[Sequence[str]], room: int, leads: Sequence[int | None] | None = None
) -> list[list[str]]:
    """The sentences of each group that fit in `room` characters all told (a sentence costs its length
    plus one), giving up the least informative first and each group's lead sentence (`leads`, else the
    `lead` of each group) last; each group keeps its order. When not even one sentence fits, it is cut
    to the room (marked with an ellipsis)."""
    total = sum(len(s) + 1 for group in groups for s in group)
    if total <= room:  # the usual case: everything fits, nothing needs scoring
        return [list(group) for group in groups]
    if leads is None:
        leads = [lead(group) for group in groups]
    pool = [(i == leads[g], score(s), g, i, s) for g, group in enumerate(groups) for i, s in enumerate(group)]
    kept = {(g, i) for _, _, g, i, _ in pool}
    for _, _, g, i, s in sorted(pool, key=lambda p: (p[0], p[1], -p[2], -p[3])):
        if total <= room or len(kept) == 1:
            break
        kept.discard((g, i))
        total -= len(s) + 1
    out: list[list[str]] = [
        [s for i, s in enumerate(group) if (g, i) in kept] for g, group in enumerate(groups)
    ]
    if total > room:
        for group in out:
            if group:
                group[0] = cut(group[0], max(room - 1, 8))
    return out


def gist(pieces: Sequence[str], room: int) -> str:
    """The most informative sentences of `pieces` (an item's request and outcome) within `room`
    characters, in their order, as one line."""
    groups = [turn_sentences(piece if piece.endswith((".", "?", "!")) else piece + ".") for piece in pieces]
    telling = [[s for i, s in enumerate(group) if i == lead(group) or score(s) > 0] for group in groups]
    if any(telling):  # a merge is compression: thanks and small talk go first, if anything else is said
        groups = telling
    kept = [s for group in fit(groups, room) for s in group]
    return " ".join(kept).rstrip(".").replace("; ", ", ")  # "; " separates the gists of a merged item
