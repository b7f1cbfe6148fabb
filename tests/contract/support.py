"""The update service over a backend under contract: a clock the test moves, exchanges made to measure."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import EvictedExchange, StoredMessage
from summarizer.domain.retry import RetryPolicy
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine.engine import SummaryEngine
from summarizer.llm.fake import FakeLLM
from summarizer.service.results import WorkerConfig
from summarizer.service.update import UpdateService
from tests.contract.harness import ContractStore

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def exchange(i: int, at: datetime = T0, tokens: int = 20) -> EvictedExchange:
    half = tokens // 2
    messages = (
        StoredMessage(2 * i - 1, Kind.USER, f"Please implement feature {i}.", half, at, i, False),
        StoredMessage(2 * i, Kind.ASSISTANT, f"Implemented feature {i}; tests pass.", half, at, i, False),
    )
    return EvictedExchange(id=i, started_at=at, ended_at=at, tokens=tokens, messages=messages)


def service(store: ContractStore, clock: Clock, llm: FakeLLM | None = None, **config: Any) -> UpdateService:
    retry = config.pop("retry", RetryPolicy(max_retries=2, base_seconds=10, max_seconds=60))
    cfg = WorkerConfig(**{"batch_size": 3, "follow_on_seconds": 0, "retry": retry, **config})
    engine = SummaryEngine(llm or FakeLLM(), ByteEstimateCounter())
    return UpdateService(store, engine, cfg, clock=clock, rng=random.Random(7))
