"""One summary update, start to finish, with no I/O of its own besides the LLM port.

age (as of `now`) -> pick the ladder rung -> one LLM call -> gate -> apply -> age again -> hard cap.
Pins ride along untouched: the model never sees them, and the items get the cap less the pins' share.
The caller (the worker) loads the summary and the batch, calls `update` with no database transaction open,
and stores `outcome.summary` with a compare-and-swap on the version. If anything raises, nothing was
changed: the previous summary stands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import structlog

from summarizer.domain.messages import EvictedExchange
from summarizer.domain.tokens import TokenCounter
from summarizer.engine.aging import age_items, expiry_detail, is_expired
from summarizer.engine.apply import apply_operations
from summarizer.engine.budget_gate import Budget, check_forgetting
from summarizer.engine.cap import CapResult, enforce_cap
from summarizer.engine.errors import AnswerRejected
from summarizer.engine.ladder import LadderConfig, UpdatePath, choose_path, visible_items
from summarizer.engine.model import Summary, SummaryItem, as_utc, in_time_order
from summarizer.engine.operations import TOOL_DESCRIPTION, TOOL_NAME, Operations, operations_schema
from summarizer.engine.pins import pins_cap_share
from summarizer.engine.ports import LLM, LLMRequest, UpdateContext
from summarizer.engine.prompt import PromptLimits, build_prompt
from summarizer.engine.provenance import ForgetLog, Forgotten
from summarizer.engine.render import render_items, render_summary
from summarizer.engine.validation import (
    DEFAULT_MAX_ITEMS_PER_EXCHANGE,
    GateContext,
    accounted_through,
    validate_answer,
)

log = structlog.get_logger("summarizer.engine")


@dataclass(frozen=True, slots=True)
class EngineConfig:
    max_tokens: int = 10_000
    ladder: LadderConfig = field(default_factory=LadderConfig)
    clip_message_chars: int = 4_000
    item_max_chars: int = 600
    max_output_tokens: int = 4_096
    token_provider: str = "anthropic"
    token_model: str = ""
    max_items_per_exchange: int = DEFAULT_MAX_ITEMS_PER_EXCHANGE
    """How many new items may cite one exchange."""
    compression_floor: float = 0.5
    """Share of the cap under which dropping existing items is refused."""
    fold_accounted_prefix: bool = True
    """An answer that accounts for the batch's first exchanges and leaves the last ones out folds those
    first ones (the rest waits for the next update) instead of being rejected whole: a small model often
    stops before the last exchange, and a rejection throws away its good items with it."""

    def __post_init__(self) -> None:
        if self.max_tokens < 1:
            raise ValueError("max_tokens must be positive")
        if self.clip_message_chars < 16 or self.item_max_chars < 16:
            raise ValueError("clip_message_chars and item_max_chars must be at least 16")
        if self.max_items_per_exchange < 1:
            raise ValueError("max_items_per_exchange must be at least 1")
        if not 0 <= self.compression_floor < 1:
            raise ValueError("compression_floor must be in [0, 1)")

    @property
    def budget(self) -> Budget:
        return Budget.for_cap(self.max_tokens, self.ladder.merge_threshold, self.compression_floor)


@dataclass(frozen=True, slots=True)
class UpdateOutcome:
    summary: Summary
    path: UpdatePath
    exchange_ids: tuple[int, ...]
    """Exchanges this update accounts for (summarized, dropped by the model, or expired)."""
    expired_exchange_ids: tuple[int, ...] = ()
    """Exchanges older than the week tier: accounted for without an LLM call."""
    llm_input_tokens: int = 0
    llm_output_tokens: int = 0
    llm_cache_read_tokens: int = 0
    llm_cache_write_tokens: int = 0
    llm_model: str = ""
    offline: bool = False
    summary_tokens: int = 0
    truncated: bool = False
    tokens_before_cap: int = 0
    tokens_after_cap: int = 0
    cap_dropped_ids: tuple[str, ...] = ()
    aged_moved: int = 0
    aged_dropped: int = 0
    forgotten: tuple[Forgotten, ...] = ()
    """The exchanges (of the batch or of the previous summary) that no item of the new summary cites, each
    exactly once, with the reason: "model", "cap" or "aging"."""


@dataclass(frozen=True, slots=True)
class AgingOutcome:
    summary: Summary
    skipped: bool
    """True when the summary was already aged on `now`'s date: nothing changed, nothing to store."""
    moved: int = 0
    dropped: int = 0
    forgotten: tuple[Forgotten, ...] = ()
    """The exchanges this pass forgot: "aging" for items past 14 days, "cap" for emergency truncation."""


class SummaryEngine:
    def __init__(self, llm: LLM, counter: TokenCounter, config: EngineConfig | None = None) -> None:
        self._llm = llm
        self._counter = counter
        self.config = config or EngineConfig()

    def with_llm(self, llm: LLM) -> SummaryEngine:
        """The same engine (counter, cap, ladder) answering through another model: the offline fallback."""
        return SummaryEngine(llm, self._counter, self.config)

    def count(self, text: str) -> int:
        return self._counter.count(self.config.token_provider, self.config.token_model, text.encode("utf-8"))

    def render(self, summary: Summary | None, now: datetime) -> str:
        return render_summary(summary, as_utc(now))

    def pins_cap_share(self, summary: Summary) -> int:
        """What the summary's pins take of the cap: their block as rendered, and one token for the rounding
        where the block meets the items (so the whole rendering stays within the cap)."""
        return pins_cap_share(summary.pins, self.count)

    def update(
        self,
        summary: Summary | None,
        agent_id: str,
        batch: Sequence[EvictedExchange],
        now: datetime,
        instructions: str | None = None,
    ) -> UpdateOutcome:
        """The next version of the summary with `batch` folded in (or its first exchanges, when the answer
        left the last ones out: `UpdateOutcome.exchange_ids` and the watermark say which). `instructions`
        are the operator's words for the model. Raises AnswerRejected, LLMTransientError or
        LLMPermanentError, in which case the caller keeps `summary`."""
        now = as_utc(now)
        base = summary or Summary.empty(agent_id)
        if base.agent_id != agent_id:
            raise ValueError(f"summary belongs to agent {base.agent_id!r}, not {agent_id!r}")
        watermark = base.covered_through_exchange_id
        fresh = sorted(
            {x.id: x for x in batch if watermark is None or x.id > watermark}.values(), key=lambda x: x.id
        )
        expired = [x for x in fresh if is_expired(x.ended_at, now)]
        live = [x for x in fresh if not is_expired(x.ended_at, now)]
        log_ = ForgetLog()
        for x in expired:
            log_.exchanges((x.id,), "aging", expiry_detail(x.ended_at))

        aged = age_items(base.items, now)
        log_.items(aged.dropped_items, "aging", lambda item: expiry_detail(item.ended_at))
        current_tokens = self.count(render_items(aged.items, now))
        pin_tokens = self.pins_cap_share(base)
        items_cap = max(1, self.config.max_tokens - pin_tokens)
        path = choose_path(current_tokens, len(live), items_cap, self.config.ladder)

        items: tuple[SummaryItem, ...] = aged.items
        folded_live: Sequence[EvictedExchange] = live
        llm_in = llm_out = cache_read = cache_write = 0
        model = ""
        offline = False
        if path is not UpdatePath.NONE:
            shown = visible_items(aged.items, path)
            request = self._request(path, live, shown, current_tokens, instructions)
            answer = self._llm.complete(request)
            cache_read, cache_write = answer.cache_read_tokens, answer.cache_write_tokens
            llm_in, llm_out, model, offline = (
                answer.input_tokens,
                answer.output_tokens,
                answer.model,
                answer.offline,
            )
            try:
                items, through = self._checked(answer.tool_input, aged.items, live, shown, path, now, log_)
            except AnswerRejected as exc:
                exc.input_tokens, exc.output_tokens, exc.model = llm_in, llm_out, model
                raise
            if through is not None:
                folded_live = [x for x in live if x.id <= through]
        done = [*expired, *folded_live]  # expired exchanges are the oldest: with the folded ones, a prefix

        reaged = age_items(items, now)
        log_.items(reaged.dropped_items, "aging", lambda item: expiry_detail(item.ended_at))
        capped = enforce_cap(reaged.items, now, items_cap, self.count)
        self._log_cap(log_, capped, reaged.items, agent_id)
        covered = max((x.id for x in done), default=None)
        if watermark is not None and (covered is None or covered < watermark):
            covered = watermark
        new_summary = replace(
            base,
            version=base.version + 1,
            items=tuple(in_time_order(capped.items)),
            covered_through_exchange_id=covered,
            token_count=capped.tokens_after + pin_tokens,
            updated_at=now,
        )
        return UpdateOutcome(
            summary=new_summary,
            path=path,
            exchange_ids=tuple(x.id for x in done),
            expired_exchange_ids=tuple(x.id for x in expired),
            llm_input_tokens=llm_in,
            llm_output_tokens=llm_out,
            llm_cache_read_tokens=cache_read,
            llm_cache_write_tokens=cache_write,
            llm_model=model,
            offline=offline,
            summary_tokens=capped.tokens_after,
            truncated=capped.truncated,
            tokens_before_cap=capped.tokens_before,
            tokens_after_cap=capped.tokens_after,
            cap_dropped_ids=capped.dropped_ids,
            aged_moved=aged.moved + reaged.moved,
            aged_dropped=aged.dropped + reaged.dropped,
            forgotten=log_.records(new_summary.items),
        )

    def age(self, summary: Summary, now: datetime) -> AgingOutcome:
        """The daily aging pass: at most one new version per agent and calendar day (of `now`'s zone)."""
        today = now.date()
        if summary.last_aged_on is not None and summary.last_aged_on >= today:
            return AgingOutcome(summary=summary, skipped=True)
        now = as_utc(now)
        log_ = ForgetLog()
        aged = age_items(summary.items, now)
        log_.items(aged.dropped_items, "aging", lambda item: expiry_detail(item.ended_at))
        pin_tokens = self.pins_cap_share(summary)
        capped = enforce_cap(aged.items, now, max(1, self.config.max_tokens - pin_tokens), self.count)
        self._log_cap(log_, capped, aged.items, summary.agent_id)
        new_summary = replace(
            summary,
            version=summary.version + 1,
            items=tuple(in_time_order(capped.items)),
            token_count=capped.tokens_after + pin_tokens,
            updated_at=now,
            last_aged_on=today,
        )
        return AgingOutcome(
            summary=new_summary,
            skipped=False,
            moved=aged.moved,
            dropped=aged.dropped,
            forgotten=log_.records(new_summary.items),
        )

    def _log_cap(
        self, log_: ForgetLog, capped: CapResult, items: Sequence[SummaryItem], agent_id: str
    ) -> None:
        if not capped.truncated:
            return
        log.warning(
            "summary.truncated",
            agent_id=agent_id,
            tokens_before=capped.tokens_before,
            tokens_after=capped.tokens_after,
            max_tokens=self.config.max_tokens,
            dropped_items=len(capped.dropped_ids),
            cut_items=len(capped.cut_ids),
        )
        dropped = set(capped.dropped_ids)
        detail = (
            f"emergency truncation: the summary was {capped.tokens_before} tokens, over the cap of "
            f"{self.config.max_tokens}"
        )
        log_.items((item for item in items if item.id in dropped), "cap", detail)

    def _checked(
        self,
        tool_input: Mapping[str, Any] | None,
        items: tuple[SummaryItem, ...],
        live: Sequence[EvictedExchange],
        shown: tuple[SummaryItem, ...],
        path: UpdatePath,
        now: datetime,
        log_: ForgetLog,
    ) -> tuple[tuple[SummaryItem, ...], int | None]:
        """The items after the answer's operations, once the gate has accepted them (AnswerRejected
        otherwise: nothing of the answer is applied), and the newest exchange the answer accounts for."""
        if tool_input is None:
            raise AnswerRejected("the model answered without the operations tool")
        gate = GateContext(
            batch_exchange_ids=[x.id for x in live],
            visible_items={item.id: item for item in shown},
            max_item_chars=self.config.item_max_chars,
            path=path,
            max_items_per_exchange=self.config.max_items_per_exchange,
            uncovered_tail_ok=self.config.fold_accounted_prefix,
        )
        ops = validate_answer(tool_input, gate)
        applied = apply_operations(items, ops, {x.id: x for x in live}, now)
        check_forgetting(
            items,
            applied.items,
            applied.added_ids,
            ops,
            self.config.budget,
            lambda some: self.count(render_items(some, now)),
        )
        _log_model_drops(log_, ops, items)
        return applied.items, accounted_through(ops)

    def _request(
        self,
        path: UpdatePath,
        live: Sequence[EvictedExchange],
        shown: Sequence[SummaryItem],
        current: int,
        instructions: str | None = None,
    ) -> LLMRequest:
        limits = PromptLimits(
            max_tokens=self.config.max_tokens,
            clip_chars=self.config.clip_message_chars,
            max_item_chars=self.config.item_max_chars,
            target_tokens=self.config.budget.target_tokens,
            floor_tokens=self.config.budget.floor_tokens,
        )
        prompt = build_prompt(
            path, live, shown, limits, current_tokens=current, operator_instructions=instructions
        )
        return LLMRequest(
            system=prompt.system,
            user=prompt.user,
            user_prefix_parts=prompt.user_prefix_parts,
            stable_tool_schema=operations_schema(path, self.config.item_max_chars),
            tool_name=TOOL_NAME,
            tool_description=TOOL_DESCRIPTION,
            tool_schema=operations_schema(
                path, self.config.item_max_chars, [x.id for x in live], [item.id for item in shown]
            ),
            max_output_tokens=self.config.max_output_tokens,
            context=UpdateContext(
                path=path,
                batch=tuple(live),
                visible_items=tuple(shown),
                max_item_chars=self.config.item_max_chars,
                max_tokens=self.config.max_tokens,
                current_tokens=current,
                max_items_per_exchange=self.config.max_items_per_exchange,
                target_tokens=self.config.budget.target_tokens,
                floor_tokens=self.config.budget.floor_tokens,
            ),
        )


def _log_model_drops(log_: ForgetLog, ops: Operations, items: Sequence[SummaryItem]) -> None:
    by_id = {item.id: item for item in items}
    for drop in ops.drop:
        log_.items((by_id[item_id] for item_id in drop.item_ids), "model", drop.reason)
        log_.exchanges(drop.exchange_ids, "model", drop.reason)
