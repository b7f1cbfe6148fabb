"""The provider breaker on both databases: one incident per outage, one probe at a time, backoff, close."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from summarizer.domain.breaker_state import HALF_OPEN, OPEN, PROVIDER_DOWN
from summarizer.engine.ports import LLMPermanentError, LLMTransientError
from summarizer.llm.fake import fault
from summarizer.llm.provider_faults import fault_kind
from summarizer.service.breaker import BreakerConfig, Gate, ProviderBreaker
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.writers import alerts
from summarizer.storage.sql.writers.breakers import SqlBreakerStore


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def breaker(db: Database, clock: Clock, **config: object) -> ProviderBreaker:
    cfg = BreakerConfig(
        **{"provider": "fake", "first_probe_seconds": 5, "max_probe_seconds": 20, **config}  # type: ignore[arg-type]
    )
    return ProviderBreaker(SqlBreakerStore(db), cfg, clock)


def provider_alerts(db: Database) -> list[alerts.AlertRecord]:
    with db.read() as conn:
        return [a for a in alerts.list_alerts(conn) if a.kind == PROVIDER_DOWN]


def test_fault_kinds_of_the_fake_are_classified_by_scope() -> None:
    assert {k: fault_kind(fault(k)) for k in ("auth", "quota", "connection", "overloaded", "rate_limit")} == {
        "auth": "auth",
        "quota": "quota",
        "connection": "connection",
        "overloaded": "overloaded",
        "rate_limit": "rate_limit",
    }
    assert fault_kind(fault("permanent")) is None  # a bad request is the batch's
    assert fault_kind(LLMPermanentError("the model refused")) is None
    assert fault_kind(ValueError("boom")) is None


def test_an_auth_failure_opens_one_incident_for_every_worker_and_a_probe_closes_it(db: Database) -> None:
    clock = Clock()
    workers = [breaker(db, clock) for _ in range(3)]  # three processes sharing the database
    assert all(w.gate() is Gate.GO for w in workers)
    retry_at = [w.failed(fault("auth"), Gate.GO) for w in workers]  # all three calls were in flight
    assert all(at == clock.now + timedelta(seconds=5) for at in retry_at)
    assert len(provider_alerts(db)) == 1
    assert all(w.gate() is Gate.PAUSED for w in workers)

    clock.advance(5)
    gates = [w.gate() for w in workers]
    assert gates.count(Gate.PROBE) == 1
    assert gates.count(Gate.PAUSED) == 2
    prober = workers[gates.index(Gate.PROBE)]
    state = prober.state()
    assert state is not None
    assert state.shown_state(clock.now) == HALF_OPEN

    assert prober.failed(fault("auth"), Gate.PROBE) == clock.now + timedelta(seconds=10)  # backoff doubles
    clock.advance(9)
    assert all(w.gate() is Gate.PAUSED for w in workers)
    clock.advance(1)
    assert prober.gate() is Gate.PROBE
    assert prober.failed(fault("auth"), Gate.PROBE) == clock.now + timedelta(seconds=20)
    clock.advance(20)
    assert prober.gate() is Gate.PROBE
    assert prober.failed(fault("auth"), Gate.PROBE) == clock.now + timedelta(seconds=20)  # capped

    clock.advance(20)
    assert workers[0].gate() is Gate.PROBE
    workers[0].succeeded(Gate.PROBE)
    assert all(w.gate() is Gate.GO for w in workers)
    [incident] = provider_alerts(db)
    assert incident.resolved_at is not None  # one alert, resolved once

    workers[1].failed(fault("connection"), Gate.GO)  # the next outage is a new incident
    assert [a.resolved_at is None for a in provider_alerts(db)] == [False, True]
    state = workers[1].state()
    assert state is not None
    assert state.state == OPEN
    assert state.fault == "connection"


def test_overload_opens_only_after_a_run_of_failures(db: Database) -> None:
    clock = Clock()
    b = breaker(db, clock, threshold=3)
    assert b.failed(fault("overloaded"), Gate.GO) is None  # retried like any transient failure
    assert b.failed(LLMTransientError("HTTP 529", status=529), Gate.GO) is None
    b.succeeded(Gate.GO)  # a success ends the run
    assert b.failed(fault("overloaded"), Gate.GO) is None
    assert b.failed(fault("rate_limit"), Gate.GO) is None
    assert b.failed(fault("server"), Gate.GO) is not None
    assert b.is_open()
    assert len(provider_alerts(db)) == 1


def test_a_probe_that_meets_an_agent_scoped_failure_closes_the_breaker(db: Database) -> None:
    clock = Clock()
    b = breaker(db, clock)
    b.failed(fault("quota"), Gate.GO)
    clock.advance(5)
    assert b.gate() is Gate.PROBE
    assert b.failed(fault("permanent"), Gate.PROBE) is None  # the provider answered: the batch is bad
    assert not b.is_open()
