"""The first step of compression: shorten items that keep a whole turn to their most informative
sentences, before any item is merged.

An item written while the summary had room holds everything a turn said. When the summary has to get
smaller, such an item loses its least informative sentences first (each side keeps its lead sentence,
every decision stays whole), down to about SHORT_CHARS characters: that keeps more of each turn than
folding it into a merge, where a source keeps one short line. Items are taken oldest tier first, then
least important, then oldest, and only until the saving covers what the budget needs, never past the
room the gate leaves. Merged items ("Topic: … Work: …") are left to the merges.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from summarizer.engine.model import SummaryItem
from summarizer.engine.operations import ShortenOp
from summarizer.llm.offline.facts import OFFLINE_PREFIX, facts_of_text
from summarizer.llm.offline.informative import answer_leads, fit, turn_sentences
from summarizer.llm.offline.wording import compose_turn

SHORT_CHARS = 240
"""About how long a shortened item is, besides its decisions."""
MIN_SAVING = 60
"""A shortening that saves less than this many characters is not worth a rewrite."""


def _sentences(piece: str) -> list[str]:
    return turn_sentences(piece if piece.endswith((".", "?", "!")) else piece + ".")


def shortened_text(text: str, max_chars: int) -> str | None:
    """`text` (an item that keeps a turn) with its least informative sentences left out, or None when it
    is not such an item or would not get shorter by MIN_SAVING characters."""
    if len(text) < SHORT_CHARS + MIN_SAVING:
        return None
    facts = facts_of_text(text)
    if not facts.asked and not facts.done:
        return None
    decided = sum(len(f" Decided: {d}.") for d in facts.decisions)
    limit = min(max_chars, SHORT_CHARS + decided)
    room = limit - len(OFFLINE_PREFIX) - len("Asked: . Done: .") - decided
    if room < 40:
        return None
    groups = [[s for piece in side[:1] for s in _sentences(piece)] for side in (facts.asked, facts.done)]
    asked, done = (" ".join(kept) for kept in fit(groups, room, answer_leads(groups)))
    short = compose_turn(asked, done, facts.decisions, facts.artifacts, limit)
    if len(short) > len(text) - MIN_SAVING or any(f"Decided: {d}" not in short for d in facts.decisions):
        return None
    return short


def plan_shortenings(
    items: Sequence[SummaryItem],
    need_bytes: int,
    room_bytes: int,
    max_chars: int,
    acceptable: Callable[[str], bool],
    taken: Collection[str] = (),
) -> tuple[list[ShortenOp], int]:
    """Shortenings of `items` that save up to `need_bytes` of rendering and never more than
    `room_bytes`, with the bytes they save; no new text repeats one of `taken` (the answer's other
    texts, normalised: the gate refuses one text standing for two items)."""
    ops: list[ShortenOp] = []
    saved = 0
    written = set(taken)
    order = sorted(items, key=lambda i: (-i.tier.rank, -i.importance.rank, i.started_at, i.id))
    for item in order:
        if saved >= need_bytes:
            break
        short = shortened_text(item.text, max_chars)
        if short is None or not acceptable(short):
            continue
        key = " ".join(short.split()).casefold()
        gain = len(item.text.encode("utf-8")) - len(short.encode("utf-8"))
        if key in written or saved + gain > room_bytes:
            continue
        written.add(key)
        ops.append(ShortenOp(item_id=item.id, text=short))
        saved += gain
    return ops, saved
