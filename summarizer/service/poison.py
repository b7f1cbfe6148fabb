"""Poison batches: a batch the model cannot answer is halved until the exchange at fault stands alone.

An answer cut at the output limit or refused (`AnswerUnusable`), or a batch rejected again after an
earlier failed attempt, is not retried whole: the first half is tried, then its first half, and so on.
Whatever half succeeds is committed (the rest comes with the next run). When a single exchange still
cannot be summarized, the agent gives up on it: a new version that moves the watermark past it and
records it as dropped with the reason `unsummarizable` and the cause, with one alert, so no agent stays
parked because of one exchange.
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


def fold(
    engine: SummaryEngine,
    summary: Summary | None,
    agent_id: str,
    batch: Sequence[EvictedExchange],
    now: datetime,
    *,
    split_rejections: bool,
) -> Folded:
    """`engine.update` over `batch`, halving it on an unusable (or, with `split_rejections`, a rejected)
    answer. Other errors propagate for the retry policy."""
    exchanges = tuple(batch)
    while True:
        try:
            return Folded(exchanges, engine.update(summary, agent_id, exchanges, now))
        except AnswerUnusable as exc:
            cause = f"{exc.cause}: {exc}"
        except AnswerRejected as exc:
            if not split_rejections:
                raise
            cause = f"rejected: {exc}"
        if len(exchanges) == 1:
            return Folded(exchanges, None, GivenUp(exchanges[0], cause))
        log.warning("update.batch_split", exchanges=len(exchanges), cause=cause[:200])
        exchanges = exchanges[: len(exchanges) // 2]
        split_rejections = True  # a half that is rejected again is split again


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
