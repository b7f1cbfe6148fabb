"""The hard cap: the rendered summary never exceeds `max_tokens`, whatever the LLM returned.

Emergency truncation is deterministic and needs no LLM. Items leave in a fixed order (oldest tier first;
within a tier the least important, then the oldest); when a single item is left and still too long, its
text is cut at the last sentence end that fits, or hard-cut with an ellipsis.

Speed comes from never re-rendering per dropped item: each item's rendered line and each section header
get their size in bytes once, the selection works on those numbers, and the real counter sees the result
once. The pieces add up to the rendering's bytes, so with the bytes counter the first selection fits.
A real tokenizer may disagree with the bytes; then the budget shrinks in proportion and the selection runs
again, a bounded number of times, and the last resort is an empty summary, which always fits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from summarizer.domain.tokens import BYTES_PER_TOKEN, estimate_from_bytes
from summarizer.engine.model import SummaryItem, id_sort_key
from summarizer.engine.render import SECTION_SEPARATOR, TIER_HEADERS, display_key, item_suffix, render_items
from summarizer.engine.tiers import TIERS_YOUNG_TO_OLD, Tier

TextCounter = Callable[[str], int]
ELLIPSIS = "…"
MAX_SELECTION_ROUNDS = 6
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f](?=[\s\"')\]]|$)")


def estimate_text(text: str) -> int:
    return estimate_from_bytes(text.encode("utf-8"))


@dataclass(frozen=True, slots=True)
class CapResult:
    items: tuple[SummaryItem, ...]
    truncated: bool
    tokens_before: int
    tokens_after: int
    dropped_ids: tuple[str, ...] = ()
    cut_ids: tuple[str, ...] = ()


def drop_order_key(item: SummaryItem) -> tuple[int, int, datetime, datetime, tuple[int, ...], str]:
    """Oldest tier first, then least important, then oldest (ties by numeric id)."""
    return (
        -item.tier.rank,
        -item.importance.rank,
        item.ended_at,
        item.started_at,
        id_sort_key(item.id),
        item.id,
    )


def cut_text(text: str, max_bytes: int) -> str:
    """The longest prefix of `text` within `max_bytes` UTF-8 bytes that ends a sentence, else a hard cut
    marked with an ellipsis; "" when nothing fits."""
    if len(text.encode("utf-8")) <= max_bytes:
        return text
    if max_bytes <= 0:
        return ""
    prefix = text.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")
    ends = [m.end() for m in _SENTENCE_END.finditer(prefix)]
    if ends:
        return prefix[: ends[-1]].rstrip()
    room = max_bytes - len(ELLIPSIS.encode("utf-8"))
    if room <= 0:
        return ""
    hard = text.encode("utf-8")[:room].decode("utf-8", errors="ignore").rstrip()
    return hard + ELLIPSIS if hard else ""


@dataclass(slots=True)
class _Plan:
    kept: list[SummaryItem]
    dropped: list[str]
    cut: list[str]


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def _select(items: Sequence[SummaryItem], now: datetime, budget: int) -> _Plan:
    """Which items stay (and which one is cut) so that the estimated rendering fits `budget`.

    Works in UTF-8 bytes: the pieces' bytes add up to the rendering's bytes exactly (up to line numbers,
    which only shrink as items leave), so the estimate equals the bytes counter's count of the result.
    """
    room = budget * BYTES_PER_TOKEN
    size = [0] * len(items)
    section_size: dict[Tier, int] = {}
    section_count: dict[Tier, int] = {}
    total = 1  # the final newline
    for tier in TIERS_YOUNG_TO_OLD:
        members = sorted(
            (i for i, item in enumerate(items) if item.tier is tier), key=lambda i: display_key(items[i])
        )
        if not members:
            continue
        section_size[tier] = _utf8_len(TIER_HEADERS[tier] + SECTION_SEPARATOR)
        section_count[tier] = len(members)
        total += section_size[tier]
        for number, i in enumerate(members, start=1):
            size[i] = _utf8_len(f"{number}. {items[i].text} {item_suffix(items[i], now)}\n")
            total += size[i]

    kept = dict(enumerate(items))
    dropped: list[str] = []
    for i in sorted(range(len(items)), key=lambda i: drop_order_key(items[i])):
        if total <= room or len(kept) <= 1:
            break
        del kept[i]
        dropped.append(items[i].id)
        total -= size[i]
        section_count[items[i].tier] -= 1
        if section_count[items[i].tier] == 0:
            total -= section_size[items[i].tier]

    cut: list[str] = []
    if total > room and kept:
        ((i, last),) = kept.items()
        fixed = _utf8_len(f"1.  {item_suffix(last, now)}\n")
        text = cut_text(last.text, room - (total - size[i]) - fixed)
        if text:
            kept[i] = replace(last, text=text)
            cut.append(last.id)
        else:
            del kept[i]
            dropped.append(last.id)
    return _Plan(kept=[kept[i] for i in sorted(kept)], dropped=dropped, cut=cut)


def enforce_cap(
    items: Sequence[SummaryItem],
    now: datetime,
    max_tokens: int,
    count: TextCounter = estimate_text,
) -> CapResult:
    """Items whose rendering, counted by `count`, is at most `max_tokens`."""
    tokens_before = count(render_items(items, now))
    if tokens_before <= max_tokens:
        return CapResult(
            tuple(items), truncated=False, tokens_before=tokens_before, tokens_after=tokens_before
        )
    budget = max_tokens
    for _ in range(MAX_SELECTION_ROUNDS):
        plan = _select(items, now, budget)
        tokens_after = count(render_items(plan.kept, now))
        if tokens_after <= max_tokens:
            return CapResult(
                tuple(plan.kept),
                truncated=True,
                tokens_before=tokens_before,
                tokens_after=tokens_after,
                dropped_ids=tuple(plan.dropped),
                cut_ids=tuple(plan.cut),
            )
        budget = min(budget - 1, budget * max_tokens // tokens_after)
        if budget <= 0:
            break
    return CapResult(
        (),
        truncated=True,
        tokens_before=tokens_before,
        tokens_after=count(render_items((), now)),
        dropped_ids=tuple(item.id for item in items),
    )
