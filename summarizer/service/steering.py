"""Steering an agent's summary: pins, summary instructions, the "Now" pin's switch.

A pin or unpin is a new summary version, made through the same compare-and-swap as an update
(`swap_summary`), kept with `made_by` "pin"/"unpin" and who did it, so `versions`, `diff` and `rollback`
see it. A worker's update that read the previous version then fails its version check and is retried
(nothing is lost either way); a pin that loses the race to an update is simply made again on the newer
version. When the new pins leave the items less room than they take, the items are capped at once (the
dropped exchanges are recorded with the reason `cap`), so the rendered summary never exceeds the cap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from summarizer.domain.agent_ids import check_agent_id
from summarizer.domain.clock import Clock, utcnow
from summarizer.domain.credentials import mask_configured, mask_credentials
from summarizer.domain.errors import SummarizerError, UnknownAgent
from summarizer.domain.steering_text import name_problem, shown, text_problem
from summarizer.engine.cap import enforce_cap
from summarizer.engine.model import NOW_PIN, Pin, Summary, in_time_order
from summarizer.engine.pins import (
    MAX_PIN_NAME_CHARS,
    PinLimits,
    TextCounter,
    operator_pins,
    pins_cap_share,
    pins_tokens,
    with_pin,
    without_pin,
)
from summarizer.engine.provenance import ForgetLog
from summarizer.storage.port import AgentSteering, StaleSummary, SteeringStore, VersionWrite

MAX_INSTRUCTIONS_CHARS = 2_000
SWAP_ATTEMPTS = 5


class PinRefused(SummarizerError):
    """A pin that breaks a rule (empty, badly named, over the pins' share of the cap)."""


class UnknownPin(SummarizerError):
    """No pin of that name."""


class InstructionsRefused(SummarizerError):
    """Summary instructions that are too long or are not text (steering_text.text_problem)."""


def check_pin_name(name: str) -> str:
    problem = name_problem(name)
    if problem is not None or len(name) > MAX_PIN_NAME_CHARS:
        raise PinRefused(
            f"pin name '{shown(name)}': give 1-{MAX_PIN_NAME_CHARS} printable characters on one line, "
            f"without leading or trailing spaces ({problem or 'too long'})"
        )
    if name.casefold() == NOW_PIN.casefold():
        raise PinRefused(f"pin name {name!r} is kept for the pin every update refreshes; choose another")
    return name


class Steering:
    def __init__(
        self,
        store: SteeringStore,
        limits: PinLimits,
        count: TextCounter,
        *,
        clock: Clock = utcnow,
        mask: bool = True,
    ) -> None:
        self.store = store
        self.limits = limits
        self._count = count
        self._clock = clock
        self._mask = mask_credentials if mask else mask_configured
        """Credentials in a pin (its text and its name) or in instructions are masked as in recorded
        messages (kept raw only where SUMMARIZER_KEEP_RAW_CREDENTIALS says so, and never the values this
        process is configured with): a pin reaches every view and every kept version, instructions every
        prompt."""

    # ----- pins ------------------------------------------------------------------------------------
    def pins(self, agent_id: str) -> tuple[Pin, ...]:
        """The agent's pins as they show, the "Now" pin first."""
        return self._current(agent_id).pins

    def room(self, agent_id: str) -> int:
        """Tokens the agent's own pins may still take under their share of the cap."""
        return max(0, self.limits.pin_tokens - pins_tokens(operator_pins(self.pins(agent_id)), self._count))

    def pin(self, agent_id: str, text: str, *, name: str | None = None, by: str = "api") -> Pin:
        """Pin `text` word for word under `name` (default: the next free `pin-N`); a pin of the same name
        is replaced. `PinRefused` when the agent's pins would pass their share of the cap."""
        if not text.strip():
            raise PinRefused("a pin needs some text")
        if (problem := text_problem(text)) is not None:
            raise PinRefused(f"pin text refused: {problem}")
        if name is not None:
            name = check_pin_name(self._mask(name))  # stored, shown and refused under its masked name
        text = self._mask(text)
        made: list[Pin] = []

        def change(summary: Summary) -> tuple[Pin, ...]:
            taken = {p.name for p in summary.pins}
            chosen = name or next(f"pin-{n}" for n in range(1, len(taken) + 2) if f"pin-{n}" not in taken)
            old = summary.pin(chosen)
            pin = Pin(chosen, text, self._clock(), by)
            pins = with_pin(summary.pins, pin)
            self._check_share(agent_id, summary.pins, pins, replacing=old is not None)
            made[:] = [pin]
            return pins

        self._change(agent_id, change, VersionWrite("pin", worker=by))
        return made[0]

    def unpin(self, agent_id: str, name: str, *, by: str = "api") -> Pin:
        """Remove the pin `name`; returns it. `UnknownPin` when the agent has none of that name."""
        if name == NOW_PIN:
            raise PinRefused(
                f'the "{NOW_PIN}" pin is refreshed by every update: turn it off with '
                f"`summarizer agent now {agent_id} off` instead"
            )
        name = self._mask(name)  # a pin is stored under its masked name
        gone: list[Pin] = []

        def change(summary: Summary) -> tuple[Pin, ...]:
            found = summary.pin(name)
            if found is None:
                names = ", ".join(shown(p.name) for p in summary.pins) or "none"
                raise UnknownPin(f"agent {agent_id!r} has no pin {name!r} (its pins: {names})")
            gone[:] = [found]
            return without_pin(summary.pins, name)

        self._change(agent_id, change, VersionWrite("unpin", worker=by))
        return gone[0]

    def _check_share(
        self, agent_id: str, before: tuple[Pin, ...], after: tuple[Pin, ...], *, replacing: bool
    ) -> None:
        limit = self.limits.pin_tokens
        wanted = pins_tokens(operator_pins(after), self._count)
        if wanted <= limit:
            return
        used = pins_tokens(operator_pins(before), self._count)
        share = f"{self.limits.share:.0%} of the {self.limits.max_tokens:,}-token summary cap"
        action = "replacing it" if replacing else "adding it"
        raise PinRefused(
            f"pin refused: the pins of agent {agent_id!r} may take {limit:,} tokens ({share}); they take "
            f"{used:,} now and {action} would make {wanted:,}, so {max(limit - used, 0):,} token(s) are "
            "left for pins (shorten the text or unpin something)"
        )

    def _current(self, agent_id: str) -> Summary:
        check_agent_id(agent_id)
        if not self.store.agent_exists(agent_id):
            raise UnknownAgent(agent_id)
        return self.store.load_summary(agent_id) or Summary.empty(agent_id)

    def _change(
        self, agent_id: str, change: Callable[[Summary], tuple[Pin, ...]], made: VersionWrite
    ) -> Summary:
        """Apply `change` to the current pins as a new version, again on a newer version if an update
        committed in between (at most SWAP_ATTEMPTS times)."""
        for attempt in range(SWAP_ATTEMPTS):
            current = self._current(agent_id)
            new, write = self._next(current, change(current), made)
            try:
                self.store.swap_summary(new, current.version, write)
                return new
            except StaleSummary:
                if attempt == SWAP_ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    def _next(
        self, current: Summary, pins: tuple[Pin, ...], made: VersionWrite
    ) -> tuple[Summary, VersionWrite]:
        """The next version with `pins`, its items capped to the room the pins leave."""
        now = self._clock()
        share = pins_cap_share(pins, self._count)
        room = max(1, self.limits.max_tokens - share)
        capped = enforce_cap(current.items, now, room, self._count)
        log_ = ForgetLog()
        if capped.truncated:
            dropped = set(capped.dropped_ids)
            detail = f"emergency truncation: pins took {share} tokens of the {self.limits.max_tokens} cap"
            log_.items((i for i in current.items if i.id in dropped), "cap", detail)
        items = tuple(in_time_order(capped.items))
        new = replace(
            current,
            version=current.version + 1,
            items=items,
            pins=pins,
            token_count=(capped.tokens_after if current.items else 0) + share,
            updated_at=now,
        )
        return new, replace(made, drops=log_.records(items))

    # ----- summary instructions and the "Now" pin's switch ----------------------------------------
    def steering(self, agent_id: str) -> AgentSteering:
        check_agent_id(agent_id)
        found = self.store.steering(agent_id)
        if found is None:
            raise UnknownAgent(agent_id)
        return found

    def set_instructions(self, agent_id: str, text: str | None) -> None:
        """Set (None or blank: clear) the words added to what the model is asked for this agent."""
        if text is not None and len(text) > MAX_INSTRUCTIONS_CHARS:
            raise InstructionsRefused(
                f"summary instructions may have at most {MAX_INSTRUCTIONS_CHARS:,} characters; "
                f"these have {len(text):,}"
            )
        if text is not None and (problem := text_problem(text)) is not None:
            raise InstructionsRefused(f"summary instructions refused: {problem}")
        check_agent_id(agent_id)
        value = self._mask(text) if text is not None and text.strip() else None
        if not self.store.set_instructions(agent_id, value):  # its own column: the "Now" choice is kept
            raise UnknownAgent(agent_id)

    def set_now_item(self, agent_id: str, on: bool | None) -> None:
        """Turn the "Now" pin on or off for this agent (None: follow SUMMARIZER_NOW_ITEM). Takes effect
        at its next update."""
        check_agent_id(agent_id)
        if not self.store.set_now_item(agent_id, on):  # its own column: the instructions are kept
            raise UnknownAgent(agent_id)


__all__ = [
    "MAX_INSTRUCTIONS_CHARS",
    "InstructionsRefused",
    "PinRefused",
    "Steering",
    "UnknownPin",
    "check_pin_name",
]
