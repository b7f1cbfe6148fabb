"""Short human forms of token counts and ages, shared by every text view."""

from __future__ import annotations

from datetime import datetime


def tokens_short(n: int) -> str:
    """1234 -> '1.2k', 12345 -> '12k', 999 -> '999'."""
    if n < 1000:
        return str(n)
    if n < 10_000:
        return f"{n / 1000:.1f}k"
    return f"{round(n / 1000)}k"


def age(then: datetime, now: datetime) -> str:
    """How long ago, coarsely: 'just now', '45min ago', '3h ago', '2d ago'."""
    seconds = (now - then).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)}min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h ago"
    return f"{int(seconds // 86400)}d ago"
