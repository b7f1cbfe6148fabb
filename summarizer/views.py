"""Text and JSON forms of what the store holds: the history view, the context view, pins."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from summarizer.domain.history import ExchangeView, HistoryView
from summarizer.domain.messages import StoredMessage
from summarizer.domain.steering_text import shown
from summarizer.engine.model import Pin, Summary, in_time_order
from summarizer.engine.tiers import TIERS_YOUNG_TO_OLD
from summarizer.humanize import age, tokens_short
from summarizer.service.ledger import LedgerEntry
from summarizer.service.steering import Steering


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def ledger_entry_json(e: LedgerEntry) -> dict[str, Any]:
    """One exchange's ledger entry: id, state, item_id, version, reason, and detail when dropped."""
    return {k: v for k, v in e.to_json().items() if k != "detail" or e.state == "dropped"}


def history_json(view: HistoryView, ledger: Sequence[LedgerEntry] | None = None) -> dict[str, Any]:
    """The history document; with `ledger`, each exchange carries its `provenance` (its ledger entry
    without the id, None for an exchange the ledger does not list)."""
    doc: dict[str, Any] = {
        "agent_id": view.agent_id,
        "budget_tokens": view.budget_tokens,
        "window_tokens": view.window_tokens,
        "exchanges": [
            {
                "id": e.id,
                "state": e.state,
                "evict_reason": e.evict_reason,
                "tokens": e.tokens,
                "message_count": e.message_count,
                "started_at": _iso(e.started_at),
                "evicted_at": _iso(e.evicted_at),
                "title": e.title,
            }
            for e in view.exchanges
        ],
    }
    if ledger is not None:
        by_id = {e.id: ledger_entry_json(e) for e in ledger}
        for exchange in doc["exchanges"]:
            found = by_id.get(exchange["id"])
            exchange["provenance"] = {k: v for k, v in found.items() if k != "id"} if found else None
    return doc


def _exchange_line(e: ExchangeView, now: datetime, newest: bool) -> str:
    when = (
        f"evicted {age(e.evicted_at, now)}"
        if e.evicted_at
        else ("current" if newest else age(e.started_at, now))
    )
    reason = " by /clear" if e.evict_reason == "clear" else ""
    plural = "s" if e.message_count != 1 else ""
    return (
        f'  Exchange {e.id}: "{e.title}" ({when}{reason}, {tokens_short(e.tokens)}, '
        f"{e.message_count} message{plural})"
    )


def history_text(view: HistoryView, now: datetime) -> str:
    budget = "unlimited" if view.budget_tokens == 0 else tokens_short(view.budget_tokens)
    lines = [
        f"Sliding Window ({tokens_short(view.window_tokens)}/{budget} tokens) for agent {view.agent_id}:"
    ]
    evicted = [e for e in view.exchanges if e.state == "evicted"]
    window = [e for e in view.exchanges if e.state == "window"]
    lines += ["", f"[Outside window - in archival] {len(evicted)} exchange(s)"]
    lines += [_exchange_line(e, now, False) for e in evicted] or ["  (none)"]
    lines += ["", f"[Inside window - currently visible] {len(window)} exchange(s)"]
    if view.preamble_tokens:
        lines.append(f"  Preamble (system prompt, {tokens_short(view.preamble_tokens)})")
    lines += [_exchange_line(e, now, i == len(window) - 1) for i, e in enumerate(window)] or ["  (none)"]
    return "\n".join(lines)


def message_json(m: StoredMessage) -> dict[str, Any]:
    return {
        "id": m.seq,
        "host_id": m.host_id,
        "kind": m.kind.value,
        "content": m.content,
        "tool_call_id": m.tool_call_id,
        "name": m.name,
        "input": m.input,
        "is_error": m.is_error,
        "exchange_id": m.exchange_id,
        "created_at": m.created_at.isoformat(),
        "tokens": m.tokens,
    }


def summary_json(
    summary: Summary | None, agent_id: str, markdown: str, max_tokens: int | None
) -> dict[str, Any]:
    """The `summarizer summary --json` document; tiers hold items youngest tier first."""
    tiers: dict[str, list[dict[str, Any]]] = {tier.value: [] for tier in TIERS_YOUNG_TO_OLD}
    for item in in_time_order(summary.items) if summary else ():
        data = item.to_dict()
        del data["tier"]
        tiers[item.tier.value].append(data)
    return {
        "agent_id": agent_id,
        "version": summary.version if summary else None,
        "token_count": summary.token_count if summary else 0,
        "max_tokens": max_tokens,
        "covered_through_exchange_id": summary.covered_through_exchange_id if summary else None,
        "updated_at": _iso(summary.updated_at) if summary else None,
        "pins": [pin_json(p) for p in summary.pins] if summary else [],
        "tiers": tiers,
        "markdown": markdown,
    }


def pin_json(pin: Pin) -> dict[str, Any]:
    return {"name": pin.name, "text": pin.text, "pinned_at": pin.pinned_at.isoformat(), "by": pin.pinned_by}


def pins_document(steering: Steering, agent_id: str) -> dict[str, Any]:
    """The `summarizer pins --json` document (and the HTTP pins routes' answer): the agent's pins, the
    "Now" pin first, and the tokens left for the operator's pins."""
    found = steering.pins(agent_id)
    return {
        "agent_id": agent_id,
        "pins": [pin_json(p) for p in found],
        "room_tokens": steering.room(agent_id),
    }


def pins_text(pins: Sequence[Pin], room: int) -> str:
    """`summarizer pins AGENT`: each pin's name, when and by whom, then its text as it is kept."""
    lines = []
    for pin in pins:
        lines.append(
            f"== {shown(pin.name)} (pinned {pin.pinned_at:%Y-%m-%d %H:%M} UTC by {pin.pinned_by or 'unknown'})"
        )
        lines.append(pin.text)
        lines.append("")
    lines.append(f"{len(pins)} pin(s); {room:,} token(s) left for pins")
    return "\n".join(lines)
