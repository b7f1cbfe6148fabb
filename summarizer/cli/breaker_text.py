"""How `summarizer stats` and `summarizer queue` show the provider breakers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from summarizer.domain.breaker_state import CLOSED, BreakerState


def breaker_line(state: BreakerState, now: datetime) -> str:
    shown = state.shown_state(now)
    if shown == CLOSED:
        return f"LLM provider {state.provider}: breaker closed"
    since = state.opened_at.strftime("%Y-%m-%d %H:%M:%S UTC") if state.opened_at else "?"
    if state.probe_at is not None and state.probe_at > now:
        probe = f"next probe in {(state.probe_at - now).total_seconds():.0f}s"
    else:
        probe = "probing now" if shown != "open" else "probe due"
    return (
        f"LLM provider {state.provider}: breaker {shown.upper()} ({state.fault}) since {since}, {probe}, "
        f"{state.probes} probe(s) failed; updates paused. Last error: {state.last_error}"
    )


def breaker_lines(states: Sequence[BreakerState], now: datetime, *, closed_too: bool) -> list[str]:
    return [breaker_line(s, now) for s in states if closed_too or s.shown_state(now) != CLOSED]
