from __future__ import annotations

import pytest

from summarizer.engine.ladder import LadderConfig, UpdatePath, choose_path, visible_items
from summarizer.engine.model import Tier
from tests.unit.engine.helpers import item

CONFIG = LadderConfig(merge_threshold=0.8, compress_threshold=0.95, tokens_per_new_exchange=100)


@pytest.mark.parametrize(
    ("current", "new", "path"),
    [
        (0, 3, UpdatePath.APPEND),
        (7_700, 3, UpdatePath.APPEND),  # projected 8000: not above 80%
        (7_701, 3, UpdatePath.MERGE),
        (9_200, 3, UpdatePath.MERGE),  # projected 9500: not above 95%
        (9_201, 3, UpdatePath.FULL),
        (12_000, 1, UpdatePath.FULL),
        (12_000, 0, UpdatePath.NONE),
    ],
)
def test_ladder_thresholds(current: int, new: int, path: UpdatePath) -> None:
    assert choose_path(current, new, 10_000, CONFIG) is path


def test_thresholds_are_configurable() -> None:
    eager = LadderConfig(merge_threshold=0.1, compress_threshold=0.2, tokens_per_new_exchange=0)
    assert choose_path(1_500, 1, 10_000, eager) is UpdatePath.MERGE
    assert choose_path(2_500, 1, 10_000, eager) is UpdatePath.FULL


def test_inconsistent_thresholds_are_refused() -> None:
    with pytest.raises(ValueError, match="merge_threshold"):
        LadderConfig(merge_threshold=0.9, compress_threshold=0.5)


def test_each_rung_shows_the_llm_more_of_the_summary() -> None:
    items = [item((1,)), item((2,), tier=Tier.YESTERDAY), item((3,), tier=Tier.WEEK)]
    assert visible_items(items, UpdatePath.APPEND) == ()
    assert [i.id for i in visible_items(items, UpdatePath.MERGE)] == ["x1"]
    assert [i.id for i in visible_items(items, UpdatePath.FULL)] == ["x1", "x2", "x3"]
