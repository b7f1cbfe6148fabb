"""The "Now" pin's refresh before each update: the user's latest request and open todo list, from the log.

The agent's choice (`agent now AGENT on|off`) wins; an agent that chose nothing follows the setting:
`auto` keeps the pin once the log holds a todo list (Claude Code `TodoWrite`, Codex `update_plan`, Gemini
CLI `write_todos`: a coding agent's log), `on` for every agent with a request, `off` for none. The pin is
set on the summary the engine folds into, so it is committed with the update, through the same
compare-and-swap, and the items are capped against it.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from summarizer.engine.model import Summary
from summarizer.engine.now_item import now_text
from summarizer.engine.pins import PinLimits, TextCounter, with_now
from summarizer.storage.port import AgentState, LatestTask

NOW_MODES = ("auto", "on", "off")


def now_wanted(mode: str, choice: bool | None) -> bool:
    """Whether the log is read for a "Now" pin at all."""
    return choice if choice is not None else mode != "off"


def now_pin_text(mode: str, choice: bool | None, task: LatestTask) -> str | None:
    """The pin's text for this log (None: no pin)."""
    if not now_wanted(mode, choice):
        return None
    if choice is None and mode == "auto" and task.todos is None:
        return None
    return now_text(task.request, task.todos)


def refresh_now(
    summary: Summary | None,
    agent_id: str,
    text: str | None,
    at: datetime,
    count: TextCounter,
    limits: PinLimits,
) -> Summary | None:
    """`summary` (or, with a pin to add, an empty one) with its "Now" pin set to `text`; the same object
    when nothing changes."""
    base = summary or Summary.empty(agent_id)
    pins = with_now(base.pins, text, at, count, limits)
    if pins == base.pins:
        return summary
    return replace(base, pins=pins)


def state_choice(state: AgentState | None) -> tuple[str | None, bool | None]:
    """The agent's instructions and its "Now" choice, from the state its claim read."""
    return (state.instructions, state.now_item) if state is not None else (None, None)
