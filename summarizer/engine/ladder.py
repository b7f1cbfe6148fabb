"""The cost ladder: spend as little LLM context as the summary's size allows.

append: the LLM sees only the new exchanges and returns new items.
merge:  the projected size is above `merge_threshold` of the cap; the LLM also sees the session tier and
        may merge or shorten those items.
full:   the projected size is above `compress_threshold`; the LLM sees the whole summary.
Emergency truncation (see `cap`) is the rung below, and needs no LLM.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from summarizer.engine.model import SummaryItem
from summarizer.engine.tiers import YOUNGEST_TIER


class UpdatePath(StrEnum):
    NONE = "none"  # nothing to summarize: aging only, no LLM call
    APPEND = "append"
    MERGE = "merge"
    FULL = "full"


@dataclass(frozen=True, slots=True)
class LadderConfig:
    merge_threshold: float = 0.8
    compress_threshold: float = 0.95
    tokens_per_new_exchange: int = 80
    """What one new exchange is expected to add to the summary: about one line."""

    def __post_init__(self) -> None:
        if not 0 < self.merge_threshold <= self.compress_threshold:
            raise ValueError(
                f"need 0 < merge_threshold <= compress_threshold, got {self.merge_threshold} "
                f"and {self.compress_threshold}"
            )
        if self.tokens_per_new_exchange < 0:
            raise ValueError("tokens_per_new_exchange must not be negative")


def projected_tokens(current_tokens: int, new_exchanges: int, config: LadderConfig) -> int:
    return current_tokens + new_exchanges * config.tokens_per_new_exchange


def choose_path(current_tokens: int, new_exchanges: int, max_tokens: int, config: LadderConfig) -> UpdatePath:
    if new_exchanges <= 0:
        return UpdatePath.NONE
    projected = projected_tokens(current_tokens, new_exchanges, config)
    if projected > config.compress_threshold * max_tokens:
        return UpdatePath.FULL
    if projected > config.merge_threshold * max_tokens:
        return UpdatePath.MERGE
    return UpdatePath.APPEND


def visible_items(items: Sequence[SummaryItem], path: UpdatePath) -> tuple[SummaryItem, ...]:
    """The items the LLM is shown, and so the only ones its operations may name."""
    if path is UpdatePath.FULL:
        return tuple(items)
    if path is UpdatePath.MERGE:
        return tuple(item for item in items if item.tier is YOUNGEST_TIER)
    return ()
