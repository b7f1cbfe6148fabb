"""Pins past their share of the summary cap, left out by the next update with an alert naming them.

The operator's pins may take at most SUMMARIZER_PINS_MAX_SHARE of SUMMARIZER_SUMMARY_MAX_TOKENS; a pin
that would pass it is refused when it is pinned. When the cap is lowered afterwards, the pins pinned
under the old cap can take more than their share: the next update keeps the first pinned that fit, whole,
and leaves the others out of the new version (the previous versions keep them: `summarizer versions`,
`rollback`), so the items keep the rest of the cap and new exchanges still find room. A warning alert
names the pins left out; acknowledging it closes it.
"""

from __future__ import annotations

from dataclasses import replace

from summarizer.domain.steering_text import shown
from summarizer.engine.model import Summary
from summarizer.engine.pins import PinLimits, TextCounter, pins_tokens, within_share
from summarizer.storage.values import PINS_TRIMMED, AlertDraft


def pins_within_share(
    summary: Summary | None, count: TextCounter, limits: PinLimits
) -> tuple[Summary | None, AlertDraft | None]:
    """`summary` with its pins held to their share (the same object when they fit), and the alert that
    names the pins left out (None when none were)."""
    if summary is None or not summary.pins:
        return summary, None
    kept, left_out = within_share(summary.pins, count, limits)
    if not left_out:
        return summary, None
    names = [shown(p.name) for p in left_out]
    taken = pins_tokens(left_out, count)
    message = (
        f"agent {summary.agent_id}: pins left out of the summary, as they no longer fit the pins' share of "
        f"the {limits.max_tokens:,}-token cap ({limits.pin_tokens:,} tokens): {', '.join(names)} "
        "(the previous summary version keeps them; pin them again shorter, or raise the cap)"
    )
    details = {
        "pins": names,
        "pins_tokens": taken,
        "pin_tokens_allowed": limits.pin_tokens,
        "summary_max_tokens": limits.max_tokens,
        "from_version": summary.version,
    }
    alert = AlertDraft(PINS_TRIMMED, summary.agent_id, message, details, severity="warning")
    return replace(summary, pins=kept), alert
