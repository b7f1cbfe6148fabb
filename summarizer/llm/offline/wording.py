"""Turning facts into one readable item text that fits the gate's length limit.

Pieces are taken whole or not at all, in order of worth: the topic line, decisions, the request, named
artifacts, then accounts of the work. What does not fit is counted ("and 4 more"), never cut into a
fragment, and an item carries at most one shortened piece (marked with an ellipsis).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from summarizer.llm.offline.facts import ELLIPSIS, OFFLINE_PREFIX, Facts, cut

MAX_MERGED_ARTIFACTS = 8


@dataclass(slots=True)
class _Draft:
    topic: str | None
    asked: list[str]
    done: list[str]
    work: list[str]
    decisions: list[str]
    artifacts: list[str]
    more_work: int = 0

    def render(self) -> str:
        parts: list[str] = []
        if self.topic:
            parts.append(f"Topic: {self.topic}.")
        if self.asked:
            parts.append("Asked: " + _stop("; ".join(self.asked)))
        if self.done:
            parts.append("Done: " + _stop("; ".join(self.done)))
        parts.extend(f"Decided: {_stop(d)}" for d in self.decisions)
        if self.work or self.more_work:
            listed = list(self.work)
            if self.more_work:
                listed.append(f"{'and ' if listed else ''}{self.more_work} more requests")
            parts.append("Work: " + _stop("; ".join(listed)))
        if self.artifacts:
            parts.append("Artifacts: " + ", ".join(self.artifacts) + ".")
        return OFFLINE_PREFIX + " ".join(parts)


def _stop(text: str) -> str:
    """`text` ending with a full stop, unless it already ends a sentence ("?", "!")."""
    return text if text.endswith((".", "?", "!")) else text + "."


@dataclass(frozen=True, slots=True)
class Composed:
    text: str
    kept_decisions: bool
    """Every decision of the facts is in the text, whole."""


def _ellipses(draft: _Draft) -> int:
    return draft.render().count(ELLIPSIS)


def _try_add(draft: _Draft, field: list[str], value: str, max_chars: int) -> bool:
    if ELLIPSIS in value and _ellipses(draft) >= 1:
        return False
    field.append(value)
    if len(draft.render()) <= max_chars:
        return True
    field.pop()
    return False


def compose(facts: Facts, max_chars: int, *, topic: str | None = None) -> Composed:
    """The item text for these facts within `max_chars` characters."""
    draft = _Draft(topic=topic, asked=[], done=[], work=[], decisions=[], artifacts=[])
    if len(draft.render()) > max_chars:
        draft.topic = cut(topic or "", max(8, max_chars - len(OFFLINE_PREFIX) - 10)) or None
    kept = True
    for decision in facts.decisions:
        if not _try_add(draft, draft.decisions, decision, max_chars):
            room = max_chars - len(draft.render()) - len(" Decided: .")
            short = cut(decision, room) if room >= 24 and _ellipses(draft) == 0 else ""
            if not short or not _try_add(draft, draft.decisions, short, max_chars) or short != decision:
                kept = False
    for asked in facts.asked:
        _try_add(draft, draft.asked, asked, max_chars)
    for i, artifact in enumerate(facts.artifacts[:MAX_MERGED_ARTIFACTS]):
        weight = facts.weight(i)
        _try_add(draft, draft.artifacts, f"{artifact} ({weight})" if weight > 1 else artifact, max_chars)
    for done in facts.done:
        _try_add(draft, draft.done, done, max_chars)
    draft.more_work = facts.more_work
    for gist in facts.work:
        if not _try_add(draft, draft.work, gist, max_chars):
            draft.more_work += 1
    while draft.work and len(draft.render()) > max_chars:
        draft.more_work += 1
        draft.work.pop()
    if len(draft.render()) > max_chars:
        draft.more_work = 0
    return Composed(text=draft.render(), kept_decisions=kept)


def compose_turn(
    asked: str, done: str, decisions: Sequence[str], artifacts: Sequence[str], max_chars: int
) -> str:
    """One exchange's item: its decisions, what each side said (already fitted to the room), then the
    named artifacts the words do not already show, as many as fit."""
    draft = _Draft(topic=None, asked=[], done=[], work=[], decisions=[], artifacts=[])
    for decision in decisions:
        _try_add(draft, draft.decisions, decision, max_chars)
    if asked:
        _try_add(draft, draft.asked, asked, max_chars)
    if done:
        _try_add(draft, draft.done, done, max_chars)
    shown = draft.render().casefold()
    for artifact in artifacts:
        if artifact.casefold() not in shown:
            _try_add(draft, draft.artifacts, artifact, max_chars)
    return draft.render()
