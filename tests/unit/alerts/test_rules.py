"""The seed's alert rules as pure decisions: thresholds, strictness, minimum samples, durations."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from summarizer.domain.alert_rules import (
    FAILURE_RATE_HIGH,
    QUEUE_DEPTH_HIGH,
    RULE_KINDS,
    SUMMARY_SIZE_HIGH,
    UPDATE_DURATION_HIGH,
    AlertThresholds,
    State,
    assess,
    evaluate,
    format_duration,
    parse_duration,
)


@dataclass(frozen=True)
class Figures:
    updates_completed: int = 0
    updates_failed: int = 0
    avg_duration_ms: float | None = None
    avg_summary_tokens: float | None = None
    queue_depth: int = 0

    @property
    def runs(self) -> int:
        return self.updates_completed + self.updates_failed

    @property
    def failure_rate(self) -> float:
        return self.updates_failed / self.runs if self.runs else 0.0


def states(figures: Figures, limits: AlertThresholds | None = None) -> dict[str, State]:
    return {v.kind: v.state for v in assess(figures, limits or AlertThresholds())}


HEALTHY = Figures(updates_completed=100, avg_duration_ms=8_200, avg_summary_tokens=7_800, queue_depth=3)


def test_defaults_are_the_seed_thresholds() -> None:
    limits = AlertThresholds()
    assert (limits.failure_rate, limits.avg_duration_ms, limits.avg_summary_tokens, limits.queue_depth) == (
        0.05,
        30_000,
        9_500,
        50,
    )
    assert limits.min_runs == 20


def test_a_healthy_fleet_is_clear_on_every_rule_in_a_stable_order() -> None:
    verdicts = assess(HEALTHY, AlertThresholds())
    assert [v.kind for v in verdicts] == list(RULE_KINDS)
    assert all(v.state is State.CLEAR for v in verdicts)
    assert evaluate(HEALTHY, AlertThresholds()) == []


def test_failure_rate_fires_strictly_above_the_threshold() -> None:
    at_limit = Figures(updates_completed=95, updates_failed=5)  # exactly 5%
    above = Figures(updates_completed=94, updates_failed=6)
    assert states(at_limit)[FAILURE_RATE_HIGH] is State.CLEAR
    firing = evaluate(above, AlertThresholds())
    assert [v.kind for v in firing] == [FAILURE_RATE_HIGH]
    assert firing[0].severity == "critical"
    assert firing[0].observed == pytest.approx(0.06)
    assert "6.0%" in firing[0].message
    assert "6 of 100 runs" in firing[0].message


def test_one_failure_out_of_one_run_does_not_page() -> None:
    assert states(Figures(updates_failed=1))[FAILURE_RATE_HIGH] is State.UNKNOWN
    assert states(Figures(updates_completed=10, updates_failed=9))[FAILURE_RATE_HIGH] is State.UNKNOWN
    assert states(Figures(updates_completed=10, updates_failed=10))[FAILURE_RATE_HIGH] is State.FIRING
    assert states(Figures(updates_failed=1), AlertThresholds(min_runs=1))[FAILURE_RATE_HIGH] is State.FIRING


def test_no_runs_at_all_judges_nothing_but_the_queue() -> None:
    assert states(Figures()) == {
        FAILURE_RATE_HIGH: State.UNKNOWN,
        UPDATE_DURATION_HIGH: State.UNKNOWN,
        SUMMARY_SIZE_HIGH: State.UNKNOWN,
        QUEUE_DEPTH_HIGH: State.CLEAR,
    }


def test_averages_are_judged_over_completed_updates_only() -> None:
    slow = Figures(updates_completed=19, updates_failed=30, avg_duration_ms=60_000, avg_summary_tokens=9_900)
    assert states(slow)[UPDATE_DURATION_HIGH] is State.UNKNOWN  # 49 runs, but only 19 completed
    assert states(slow)[SUMMARY_SIZE_HIGH] is State.UNKNOWN
    enough = Figures(updates_completed=20, avg_duration_ms=30_001, avg_summary_tokens=9_501)
    assert states(enough)[UPDATE_DURATION_HIGH] is State.FIRING
    assert states(enough)[SUMMARY_SIZE_HIGH] is State.FIRING
    limit = Figures(updates_completed=20, avg_duration_ms=30_000, avg_summary_tokens=9_500)
    assert states(limit)[UPDATE_DURATION_HIGH] is State.CLEAR
    assert states(limit)[SUMMARY_SIZE_HIGH] is State.CLEAR


def test_queue_depth_needs_no_sample() -> None:
    assert states(Figures(queue_depth=50))[QUEUE_DEPTH_HIGH] is State.CLEAR
    deep = evaluate(Figures(queue_depth=51), AlertThresholds())
    assert [(v.kind, v.observed, v.threshold) for v in deep] == [(QUEUE_DEPTH_HIGH, 51, 50)]


def test_thresholds_are_configurable() -> None:
    limits = AlertThresholds(
        failure_rate=0.5, avg_duration_ms=1_000, avg_summary_tokens=100, queue_depth=0, min_runs=2
    )
    figures = Figures(updates_completed=2, updates_failed=1, avg_duration_ms=1_500, avg_summary_tokens=50)
    assert {v.kind for v in evaluate(figures, limits)} == {UPDATE_DURATION_HIGH}
    assert {v.kind for v in evaluate(Figures(queue_depth=1), limits)} == {QUEUE_DEPTH_HIGH}


def test_messages_and_details_carry_the_figures() -> None:
    limits = AlertThresholds(window_seconds=5_400)
    figures = Figures(updates_completed=25, avg_duration_ms=42_500, avg_summary_tokens=9_800)
    by_kind = {v.kind: v for v in evaluate(figures, limits)}
    duration = by_kind[UPDATE_DURATION_HIGH]
    assert "42.5s" in duration.message
    assert "last 90m" in duration.message
    assert duration.details["sample"] == 25
    assert duration.details["window_seconds"] == 5_400
    assert "9,800 tokens" in by_kind[SUMMARY_SIZE_HIGH].message


def test_thresholds_refuse_an_empty_sample_or_window() -> None:
    with pytest.raises(ValueError, match="min_runs"):
        AlertThresholds(min_runs=0)
    with pytest.raises(ValueError, match="window"):
        AlertThresholds(window_seconds=0)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90m", 5_400),
        ("24h", 86_400),
        ("7d", 604_800),
        ("30s", 30),
        ("3600", 3_600),
        ("1.5h", 5_400),
        (" 2W ", 1_209_600),
    ],
)
def test_durations_parse(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "soon", "0", "0h", "-5m", "5y", "h", "1h30m"])
def test_bad_durations_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="duration"):
        parse_duration(text)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(86_400, "24h"), (5_400, "90m"), (604_800, "7d"), (3_600, "1h"), (90, "90s"), (172_800, "2d")],
)
def test_durations_format_back(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text
    assert parse_duration(text) == seconds
