"""Pins as a set: adding, replacing, removing, the "Now" pin's refresh, and what they take of the cap.

Pure functions over `Summary.pins`. The operator's pins may take at most `share` of the summary's cap
(counted as rendered, with the same counter as the cap), so the items always keep the rest; pins past
the share after the cap was lowered are left out by the next update (`within_share`). The "Now" pin takes
what is left of that share, and is cut to fit when the log's request and todo list are longer (the only
time a pin's text is not kept whole, and it says so).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from summarizer.engine.cap import cut_text
from summarizer.engine.model import NOW_PIN, Pin
from summarizer.engine.render import render_pins

MAX_PIN_NAME_CHARS = 60
NOW_CUT_NOTE = "\n[cut to fit the pins' share of the summary cap]"
NOW_PINNED_BY = "update"

TextCounter = Callable[[str], int]


@dataclass(frozen=True, slots=True)
class PinLimits:
    max_tokens: int
    """The summary's cap (SUMMARIZER_SUMMARY_MAX_TOKENS)."""
    share: float
    """The share of it the pins may take (SUMMARIZER_PINS_MAX_SHARE)."""

    @property
    def pin_tokens(self) -> int:
        return int(self.max_tokens * self.share)


def pins_tokens(pins: Sequence[Pin], count: TextCounter) -> int:
    """What these pins take of the cap, as rendered (0 for none)."""
    return count(render_pins(pins)) if pins else 0


def pins_cap_share(pins: Sequence[Pin], count: TextCounter) -> int:
    """What the pins take of the cap before the items get the rest: their block, and one token for the
    rounding where the block meets the items (so the whole rendering stays within the cap)."""
    return pins_tokens(pins, count) + 1 if pins else 0


def operator_pins(pins: Sequence[Pin]) -> tuple[Pin, ...]:
    return tuple(p for p in pins if p.name != NOW_PIN)


def ordered(pins: Sequence[Pin]) -> tuple[Pin, ...]:
    """The "Now" pin first, the others in the order they were first pinned."""
    return tuple(p for p in pins if p.name == NOW_PIN) + operator_pins(pins)


def with_pin(pins: Sequence[Pin], pin: Pin) -> tuple[Pin, ...]:
    """`pins` with `pin` added, or replacing the pin of its name where that one stood."""
    if any(p.name == pin.name for p in pins):
        return ordered([pin if p.name == pin.name else p for p in pins])
    return ordered([*pins, pin])


def without_pin(pins: Sequence[Pin], name: str) -> tuple[Pin, ...]:
    return tuple(p for p in pins if p.name != name)


def within_share(
    pins: Sequence[Pin], count: TextCounter, limits: PinLimits
) -> tuple[tuple[Pin, ...], tuple[Pin, ...]]:
    """`pins` without the operator's pins past their share of the cap (a cap lowered since they were
    pinned), and those left out. The first pinned are kept, whole, as long as they fit; the "Now" pin is
    kept (`with_now` fits it to what is left)."""
    others = operator_pins(pins)
    for index in range(len(others)):
        if pins_tokens(others[: index + 1], count) > limits.pin_tokens:
            kept = others[:index]
            return tuple(p for p in pins if p.name == NOW_PIN or p in kept), others[index:]
    return tuple(pins), ()


def with_now(
    pins: Sequence[Pin], text: str | None, at: datetime, count: TextCounter, limits: PinLimits
) -> tuple[Pin, ...]:
    """`pins` with the "Now" pin set to `text` (removed for None), cut to the room the operator's pins
    leave under their share. Unchanged text keeps the pin as it was (its time included)."""
    others = operator_pins(pins)
    if text is None:
        return others
    current = next((p for p in pins if p.name == NOW_PIN), None)
    used = pins_tokens(others, count)
    fitted = _fit(text, limits.pin_tokens - used, others, used, at, count)
    if fitted is None:
        return others
    if current is not None and current.text == fitted:
        return (current, *others)
    return (Pin(NOW_PIN, fitted, at, NOW_PINNED_BY), *others)


def _fit(
    text: str, room: int, others: Sequence[Pin], used: int, at: datetime, count: TextCounter
) -> str | None:
    """`text`, or its start with NOW_CUT_NOTE, as a "Now" pin taking at most `room` tokens beyond the
    `used` of the operator's pins; None when not even a cut one fits."""

    def size(candidate: str) -> int:
        return pins_tokens((Pin(NOW_PIN, candidate, at, NOW_PINNED_BY), *others), count) - used

    if size(text) <= room:
        return text
    note = len(NOW_CUT_NOTE.encode("utf-8"))
    budget = len(text.encode("utf-8")) * room // max(size(text), 1) - note
    for _ in range(12):
        if budget <= 0:
            return None
        cut = cut_text(text, budget)
        if cut and size(cut + NOW_CUT_NOTE) <= room:
            return cut + NOW_CUT_NOTE
        budget = budget * 9 // 10
    return None
