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

from summarizer.domain.recall import STOP_WORDS
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
_FRAMING = re.compile(
    r"^\W*(?:(?:here(?:['\u2019]s| is) (?:how|what|my|the (?:plan|short answer|gist))\b[^.!?]{0,40}[.!?:]?$)|"
    r"(?:good|great|fair|interesting) (?:question|point)|(?:happy|glad) to (?:help|dig|go|walk|explain|adjust)|"
    r"(?:let me|tell me|let us) know|(?:i )?hope (?:this|that) helps|it depends|let me (?:think|explain|check)|"
    r"(?:(?:right|ok(?:ay)?|so|well|alright|sure)\W+)?let(?: me| us|'s) (?:lay out|put|walk|break|go over|go through|"
    r"outline|recap|summari[sz]e|unpack|think|explain)\b[^.!?]{0,60}[.!?:]?$|"
    r"there (?:are|is) (?:a few|a couple(?: of)?|several|two|three|some|a number of|more than one) "
    r"(?:ways?|options?|approaches|things|angles?|considerations|points|factors|sides|parts|trade-?offs)\b|"
    r"(?:in short|to summari[sz]e|that said|to be fair|honestly|as always)\W*$)",
    re.I,
)
"""Sentences that frame or hedge an answer rather than state anything: they never lead a side and are the
first to go when a turn must shrink."""
_REASON = re.compile(
    r"\b(?:because|so that|since|instead of|rather than|in order to|which means|prefer\w*|chose|choose|"
    r"picked|opted|went with|better than|over the|not worth|worth it|trade-?off)\b",
    re.I,
)
_FIRST_PERSON = re.compile(
    r"^(?:[^?]*?\b)?(?:I|I'm|I've|I'd|I'll|my|we|we're|we've|our)\s+(?:\w+\s+){0,3}?"
    r"(?:am|was|have|had|live\w*|work\w*|like\w*|love\w*|hate\w*|prefer\w*|own\w*|bought|moved|started|"
    r"finished|got|went|visited|use[ds]?|using|need\w*|want\w*|plan\w*|chose|switched|keep|fail|stor\w+|"
    r"run\w*|built|wrote|adopted|joined|met|read|play\w*|study\w*|learn\w*|born|grew|raised|name\w*)\b",
    re.I,
)
_FILLER = re.compile(
    r"^\W*(?:ok(?:ay)?|sure|thanks|thank you|wow|great|awesome|cool|nice|yeah|yes|no|hi|hey|hello|bye|"
    r"glad|congrats|congratulations|that's (?:great|awesome|amazing|cool|so)|sounds (?:great|good|fun)|"
    r"haha|lol|oh)\b",
    re.I,
)


_SIGNALS: tuple[tuple[re.Pattern[str], int], ...] = (
    (_NUMBER, 2),
    (_TIME_WORDS, 2),
    (DECISION, 3),
    (_ERROR_WORDS, 1),
    (_COMMIT_WORDS, 1),
    (_REASON, 2),
)
"""What a sentence earns for each kind of fact it carries (searched anywhere in it)."""


def score(sentence: str) -> int:
    """How much a sentence says: the higher, the later it is given up."""
    words = _WORD.findall(sentence)
    asks = sentence.endswith("?")
    points = min(len(words) // 5, 3) + min(len(_NAME.findall(sentence)), 3)
    points += sum(weight for pattern, weight in _SIGNALS if pattern.search(sentence))
    if names_artifact(sentence):
        points += 2
    if _FIRST_PERSON.match(sentence) and not asks:
        points += 2
    if _FILLER.match(sentence):
        points -= 2
    if framing(sentence):
        points -= 4
    return points - asks - (2 if len(words) < 4 else 0)


def framing(sentence: str) -> bool:
    """Whether a sentence frames or hedges an answer ("Here's how I'd think about it.", "Good question.")
    instead of stating a fact."""
    return bool(_FRAMING.match(sentence))


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


def lead(group: Sequence[str], topic: str = "") -> int | None:
    """The index of the sentence that says what a side is about: the first of three words or more that
    is not a greeting, a thank-you or a framing line (None when there is none). Given the `topic` (what
    the other side asked), the first such sentence that shares two of its content words leads instead,
    so an answer is represented by what it says about the question ("fail closed for /token" for "fail
    open or fail closed?") rather than by its preamble."""
    wanted = _content_words(topic)
    first: int | None = None
    for i, sentence in enumerate(group):
        words = len(sentence.split())
        if (
            words >= 3
            and not sentence.endswith(":")
            and not (_FILLER.match(sentence) and words < 7)
            and not framing(sentence)
        ):
            if len(wanted) < 2 or len(wanted & _content_words(sentence)) >= 2:
                return i
            if first is None:
                first = i
    return first


def _content_words(text: str) -> set[str]:
    return {
        w.casefold()
        for w in _WORD.findall(text[:CLIP_CHARS])
        if len(w) > 3 and w.casefold() not in STOP_WORDS
    }


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


def answer_leads(groups: Sequence[Sequence[str]]) -> list[int | None]:
    """Each group's lead sentence; after the first group that has one (the request), the others lead with
    what speaks to it, so an answer keeps the sentence that answers rather than its first point."""
    leads: list[int | None] = []
    topic = ""
    for group in groups:
        at = lead(group, topic)
        leads.append(at)
        if not topic and at is not None:
            topic = group[at]
    return leads


def gist(pieces: Sequence[str], room: int) -> str:
    """The most informative sentences of `pieces` (an item's request and outcome) within `room`
    characters, in their order, as one line."""
    groups = [turn_sentences(piece if piece.endswith((".", "?", "!")) else piece + ".") for piece in pieces]
    leads = answer_leads(groups)
    telling = [
        [s for i, s in enumerate(group) if i == leads[g] or score(s) > 0] for g, group in enumerate(groups)
    ]
    if any(telling):  # a merge is compression: thanks and small talk go first, if anything else is said
        groups = telling
        leads = answer_leads(groups)
    kept = [s for group in fit(groups, room, leads) for s in group]
    return " ".join(kept).rstrip(".").replace("; ", ", ")  # "; " separates the gists of a merged item
