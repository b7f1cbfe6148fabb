"""Poison batches: a batch the model cannot answer is halved until the exchange at fault stands alone.

An answer that accounts for the batch's first exchanges but leaves the last ones out folds those first
ones; the rest stay unsummarized for the next update.

An unusable answer (`AnswerUnusable`: cut at the output limit, refused, filtered, no tool call, tool
arguments that are not JSON, a body that is not the API's JSON), or a batch rejected again after an earlier
failed attempt, is not retried whole: the first half is tried, then its first half, and so on. Whatever
half succeeds is committed (the rest comes with the next run). When the model still cannot fold a single
exchange, the extractive offline summarizer folds it instead (degrade, never drop): its items say
`[offline]` and the version's run is `offline-fallback`. Only an exchange even the offline summarizer
cannot take (its answer fails the same gate, e.g. an exchange with no visible text at all) is given up
on: a new version moves the watermark past it and records it as dropped with the reason
`unsummarizable` and the cause, with one alert, so no agent stays parked because of one exchange.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

import structlog

from summarizer.domain.messages import EvictedExchange
from summarizer.engine.engine import SummaryEngine, UpdateOutcome
from summarizer.engine.errors import AnswerRejected
from summarizer.engine.model import Summary
from summarizer.engine.ports import AnswerUnusable
from summarizer.engine.provenance import Forgotten
from summarizer.storage.port import EXCHANGE_UNSUMMARIZABLE, AlertDraft

log = structlog.get_logger("summarizer.worker")


@dataclass(frozen=True, slots=True)
class GivenUp:
    exchange: EvictedExchange
    cause: str


@dataclass(frozen=True, slots=True)
class Folded:
    """What one update accounts for: `exchanges` (a prefix of the batch), folded by `outcome` or, when
    `given_up`, skipped as unsummarizable."""

    exchanges: tuple[EvictedExchange, ...]
    outcome: UpdateOutcome | None
    given_up: GivenUp | None = None
    degraded: str | None = None
    """Why the model could not fold `exchanges`, when the offline summarizer folded them instead."""
    routed: bool = False
    """The model was not asked: the agent's model breaker is open (model_routing.py)."""
    unusable_input_tokens: int = 0
    unusable_output_tokens: int = 0
    """What the model's unusable answers on the way here cost (they are billed like any other)."""
    unusable_model: str | None = None
    """The model that wrote those answers (the last one, if several did): what prices their tokens."""


@dataclass(frozen=True, slots=True)
class Folding:
    """Who folds a batch: `engine`, told the operator's `instructions`, and `fallback` (the offline
    summarizer, which does not follow them) for a single exchange the engine cannot fold."""

    engine: SummaryEngine
    fallback: SummaryEngine | None = None
    instructions: str | None = None


def fold(
    folding: Folding,
    summary: Summary | None,
    agent_id: str,
    batch: Sequence[EvictedExchange],
    now: datetime,
    *,
    split_rejections: bool,
) -> Folded:
    """`engine.update` over `batch`, halving it on an unusable (or, with `split_rejections`, a rejected)
    answer; a single exchange the model cannot fold is folded by the fallback when `folding` has one.
    Other errors propagate for the retry policy."""
    engine, fallback, instructions = folding.engine, folding.fallback, folding.instructions
    exchanges = tuple(batch)
    spent = [0, 0]
    model: str | None = None
    while True:
        try:
            outcome = engine.update(summary, agent_id, exchanges, now, instructions)
            done = _accounted(exchanges, outcome)
            return Folded(
                done,
                outcome,
                unusable_input_tokens=spent[0],
                unusable_output_tokens=spent[1],
                unusable_model=model,
            )
        except AnswerUnusable as exc:
            cause = f"{exc.cause}: {exc}"
            spent[0] += exc.input_tokens
            spent[1] += exc.output_tokens
            model = exc.model or model
        except AnswerRejected as exc:
            if not split_rejections:
                exc.input_tokens += spent[0]  # the failed run records every answer it paid for
                exc.output_tokens += spent[1]
                exc.model = exc.model or model or ""
                raise
            cause = f"rejected: {exc}"
            spent[0] += exc.input_tokens
            spent[1] += exc.output_tokens
            model = exc.model or model
        if len(exchanges) == 1:
            folded = _degrade(fallback, summary, agent_id, exchanges, now, cause)
            return replace(
                folded,
                unusable_input_tokens=spent[0],
                unusable_output_tokens=spent[1],
                unusable_model=model,
            )
        log.warning("update.batch_split", exchanges=len(exchanges), cause=cause[:200])
        exchanges = exchanges[: len(exchanges) // 2]
        split_rejections = True  # a half that is rejected again is split again


def _accounted(exchanges: tuple[EvictedExchange, ...], outcome: UpdateOutcome) -> tuple[EvictedExchange, ...]:
    """The prefix of `exchanges` the new version covers: all of them, or fewer when the answer accounted
    for the first ones and left the last ones out (`EngineConfig.fold_accounted_prefix`); those wait,
    unsummarized, for the next update."""
    folded = set(outcome.exchange_ids)
    done = tuple(x for x in exchanges if x.id in folded)
    if len(done) < len(exchanges):
        log.info("update.folded_prefix", folded=len(done), waiting=len(exchanges) - len(done))
    return done


def _degrade(
    fallback: SummaryEngine | None,
    summary: Summary | None,
    agent_id: str,
    exchanges: tuple[EvictedExchange, ...],
    now: datetime,
    cause: str,
) -> Folded:
    """The offline summarizer folds what the model could not; given up on only if it cannot either."""
    if fallback is None:
        return Folded(exchanges, None, GivenUp(exchanges[0], cause))
    try:
        outcome = fallback.update(summary, agent_id, exchanges, now)
    except (AnswerUnusable, AnswerRejected) as exc:
        both = f"{cause}; the offline summarizer could not either: {exc}"
        return Folded(exchanges, None, GivenUp(exchanges[0], both))
    log.warning("update.degraded", exchange=exchanges[0].id, cause=cause[:200])
    return Folded(exchanges, outcome, degraded=cause)


def skip_version(summary: Summary | None, agent_id: str, given_up: GivenUp, now: datetime) -> Summary:
    """The next version: the same items, the watermark past the exchange given up on."""
    base = summary or Summary.empty(agent_id)
    return replace(
        base, version=base.version + 1, covered_through_exchange_id=given_up.exchange.id, updated_at=now
    )


def skip_drops(given_up: GivenUp) -> tuple[Forgotten, ...]:
    return (Forgotten((given_up.exchange.id,), "unsummarizable", None, given_up.cause[:1000]),)


def skip_alert(agent_id: str, given_up: GivenUp) -> AlertDraft:
    """An informational alert (a warning: nothing is broken any more, the agent went on) naming the
    exchange and the cause, as the drop row records them. No condition clears it: it is a one-off event,
    which an operator's acknowledgement closes."""
    x = given_up.exchange.id
    message = (
        f"exchange {x} of agent {agent_id!r} could not be summarized ({given_up.cause[:300]});"
        " it is recorded as dropped (unsummarizable) and the agent went on"
    )
    details = {"exchange_id": x, "cause": given_up.cause}
    return AlertDraft(EXCHANGE_UNSUMMARIZABLE, agent_id, message, details, severity="warning")
