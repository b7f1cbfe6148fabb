"""Which shown items to merge, by topic first, so the summary gets back well under its budget.

Items are grouped in widening circles, each within one tier: the same day and the same topic (a shared
file, endpoint or code name), then the same day, then the same week, then the whole tier. Oldest tiers go
first. A group is cut into runs whose merged text still holds every decision of its sources whole; a run of
two or more items becomes one merge. Merging stops once the saved size covers what the budget needs, and
no run is made so large that its merge alone would save more than `room_bytes` (the gate refuses an
answer that shrinks the summary under half of its cap, so one wide merge may not overshoot to there).
Nothing is ever dropped here: merging only folds words, and the merged item cites the union of its
sources' exchanges (the engine sets that).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from functools import lru_cache

from summarizer.engine.model import Importance, SummaryItem
from summarizer.engine.operations import MergeOp
from summarizer.engine.render import display_order
from summarizer.llm.offline.facts import Facts, facts_of_text, merge_facts, topic_of
from summarizer.llm.offline.informative import gist
from summarizer.llm.offline.wording import Composed, compose

EPISODE_GAP = timedelta(minutes=20)
"""Items closer than this in time belong to one episode (one task, one customer)."""
MAX_RUN = 12
"""Most items one merge folds at the narrow stages (topic, episode); the day and week stages have no bound."""
LINE_OVERHEAD_BYTES = 32
"""An item's rendered line besides its text: number, time and size suffix, newline (about)."""
GIST_CHARS = 160
"""How much of one source item's words a merge keeps: its most informative sentences."""

TextCheck = Callable[[str], bool]


@dataclass(frozen=True, slots=True)
class Shown:
    item: SummaryItem
    facts: Facts
    day: date
    topic: str | None
    episode: datetime

    @property
    def size(self) -> int:
        return line_bytes(self.item.text)


def line_bytes(text: str) -> int:
    return len(text.encode("utf-8")) + LINE_OVERHEAD_BYTES


def _headline(run: Sequence[Shown], topic: str | None) -> str:
    """When the merged items happened, and what about when they share a topic: the sentences below say
    what was done, so the line carries no count of exchanges."""
    first = min(s.day for s in run)
    last = max(s.day for s in run)
    when = f"{first:%a %d %b}" if first == last else f"{first:%a %d %b} to {last:%a %d %b}"
    return f"{topic}, {when}" if topic else when


@lru_cache(maxsize=4096)
def facts_for_merging(text: str) -> Facts:
    """The condensed facts of an item's text (the same text is read on many updates, so they are kept)."""
    return condensed(facts_of_text(text))


def condensed(facts: Facts) -> Facts:
    """An item's facts as a merge takes them: what each side said shortened to its most informative
    sentences (one line of work), decisions and artifacts as they are."""
    if not facts.asked and not facts.done:
        return facts
    line = gist((*facts.asked, *facts.done), GIST_CHARS)
    return replace(facts, asked=(), done=(), work=(*facts.work, line) if line else facts.work)


def _importance(run: Sequence[Shown], has_decisions: bool) -> Importance:
    if has_decisions:
        return Importance.HIGH
    return min((s.item.importance for s in run), key=lambda i: i.rank)


@dataclass(frozen=True, slots=True)
class _Stage:
    key: Callable[[Shown], Hashable]
    topical: bool
    eligible: Callable[[Shown], bool]
    max_run: int | None = MAX_RUN


_STAGES: tuple[_Stage, ...] = (
    _Stage(lambda s: (s.day, s.topic), True, lambda s: s.topic is not None),
    _Stage(lambda s: s.episode, False, lambda s: True),
    _Stage(lambda s: s.day, False, lambda s: not s.facts.decisions, None),
    _Stage(lambda s: s.day, False, lambda s: True, None),
    _Stage(lambda s: s.day.isocalendar()[:2], False, lambda s: True, None),
    _Stage(lambda s: 0, False, lambda s: True, None),
)


@dataclass(slots=True)
class _Planner:
    max_chars: int
    acceptable: TextCheck
    need: int
    room: int
    """How much more the merges may save in all before the summary would get too small."""
    used: set[str]
    merges: list[MergeOp]
    written: set[str] = field(default_factory=set)
    """The merged texts planned so far, normalised."""

    def composed(self, run: Sequence[Shown], topical: bool, facts: Facts | None = None) -> Composed:
        """The merged item `run` (whose merged facts are `facts`, when already known) would become."""
        topic = run[0].topic if topical else None
        merged = facts if facts is not None else merge_facts(s.facts for s in run)
        return compose(merged, self.max_chars, topic=_headline(run, topic))

    def within_room(self, run: Sequence[Shown], topical: bool, composed: Composed | None = None) -> bool:
        """Whether merging `run` (into `composed`, when already known) would save no more than the room left."""
        size = sum(s.size for s in run)
        if size <= self.room:  # no merge saves more than its sources' size
            return True
        merged = composed if composed is not None else self.composed(run, topical)
        return size - line_bytes(merged.text) <= self.room

    def run_merge(self, run: Sequence[Shown], topical: bool) -> None:
        facts = merge_facts(s.facts for s in run)
        composed = self.composed(run, topical, facts)
        saved = sum(s.size for s in run) - line_bytes(composed.text)
        if saved <= 0 or saved > self.room:
            return
        if not composed.kept_decisions or not self.acceptable(composed.text):
            return
        key = " ".join(composed.text.split()).casefold()
        if key in self.written:  # the gate refuses one text standing for two merges
            return
        self.written.add(key)
        self.merges.append(
            MergeOp(
                item_ids=tuple(s.item.id for s in run),
                text=composed.text,
                importance=_importance(run, bool(facts.decisions)),
            )
        )
        self.used.update(s.item.id for s in run)
        self.need -= saved
        self.room -= saved

    def group(self, members: Sequence[Shown], topical: bool, max_run: int | None) -> None:
        """Cut `members` (display order) into runs that keep every decision, and merge each run."""
        run: list[Shown] = []
        for member in members:
            if self.need <= 0:
                return
            candidate = [*run, member]
            fits = max_run is None or len(candidate) <= max_run
            composed = None
            if fits and any(s.facts.decisions for s in candidate):
                composed = self.composed(candidate, topical)
                fits = composed.kept_decisions
            if fits and len(candidate) >= 2:
                fits = self.within_room(candidate, topical, composed)
            if fits:
                run = candidate
                continue
            if len(run) >= 2:
                self.run_merge(run, topical)
            run = [member]
        if len(run) >= 2 and self.need > 0:
            self.run_merge(run, topical)


def shown_items(items: Sequence[SummaryItem]) -> list[Shown]:
    out: list[Shown] = []
    episode: datetime | None = None
    last_end: datetime | None = None
    for item in display_order(items):
        facts = facts_for_merging(item.text)
        if episode is None or last_end is None or item.started_at - last_end > EPISODE_GAP:
            episode = item.started_at
        last_end = item.ended_at if last_end is None else max(last_end, item.ended_at)
        out.append(Shown(item, facts, item.started_at.date(), topic_of(facts), episode))
    return out


def plan_merges(
    items: Sequence[SummaryItem],
    need_bytes: int,
    max_chars: int,
    acceptable: TextCheck,
    room_bytes: int | None = None,
) -> list[MergeOp]:
    """Merges of shown items that together save at least `need_bytes` of rendering, when they can, and
    never more than `room_bytes` (no limit when None)."""
    if need_bytes <= 0:
        return []
    room = sys.maxsize if room_bytes is None else room_bytes
    planner = _Planner(max_chars, acceptable, need_bytes, room, set(), [])
    shown = shown_items(items)
    tiers = sorted({s.item.tier for s in shown}, key=lambda t: -t.rank)
    for stage in _STAGES:
        for tier in tiers:
            groups: dict[Hashable, list[Shown]] = {}
            for s in shown:
                if s.item.tier is tier and s.item.id not in planner.used and stage.eligible(s):
                    groups.setdefault(stage.key(s), []).append(s)
            for members in groups.values():
                if len(members) >= 2:
                    planner.group(members, stage.topical, stage.max_run)
                if planner.need <= 0:
                    return planner.merges
    return planner.merges
