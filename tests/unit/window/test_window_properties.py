"""Property test of the window invariants on the pure planner, over random valid conversations."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from summarizer.domain.messages import NewMessage
from summarizer.domain.window import WindowPlanner, WindowState
from tests.support.conversations import WindowMessage, check_window_invariants, conversations

T0 = datetime(2026, 3, 1, tzinfo=UTC)


@settings(max_examples=400, deadline=None)
@given(
    messages=conversations(),
    budget=st.integers(min_value=0, max_value=1200),
    cuts=st.lists(st.integers(min_value=1, max_value=60), max_size=5),
)
def test_window_invariants_hold_after_every_batch(
    messages: list[NewMessage], budget: int, cuts: list[int]
) -> None:
    state = WindowState(budget=budget)
    totals: dict[int, int] = {}
    placed_rows: list[tuple[int, NewMessage, int | None, int]] = []
    bounds = sorted({0, len(messages), *(c for c in cuts if c < len(messages))})
    tick = 0
    for start, end in itertools.pairwise(bounds):
        planner = WindowPlanner(state, lambda n: totals.get(n, 0))
        for m in messages[start:end]:
            tick += 1
            tokens = m.tokens if m.tokens is not None and m.kind.value not in {"mark", "clear"} else 0
            p = planner.add(m, tokens, T0 + timedelta(seconds=tick))
            placed_rows.append((p.seq, m, p.exchange, tokens))
            if p.exchange is not None:
                totals[p.exchange] = totals.get(p.exchange, 0) + tokens
        planner.enforce_budget(T0 + timedelta(seconds=tick))
        rows = [
            WindowMessage(
                seq=seq,
                kind=m.kind,
                exchange=ex,
                in_window=ex is None or ex >= state.window_start,
                tokens=tokens,
                tool_call_id=m.tool_call_id,
                continues_exchange=m.continues_exchange,
            )
            for seq, m, ex, tokens in placed_rows
        ]
        check_window_invariants(rows, budget, state.window_tokens, state.exchanges_in_window)
