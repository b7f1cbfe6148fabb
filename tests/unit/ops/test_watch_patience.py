"""How `watch` waits out a database it cannot reach: the outage said once, the same follow tried again
after a doubling backoff bounded at MAX_RETRY_S, the return said once; told to stop meanwhile, it gives up
quietly; without a stop event (`--once`) the outage is raised. The waits are recorded, not slept."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from sqlalchemy.exc import OperationalError

from summarizer.cli.watch_output import FIRST_RETRY_S, MAX_RETRY_S, Shown


class _Recorded(threading.Event):
    """A stop event whose waits return at once and are recorded; set after `stop_after` waits."""

    def __init__(self, stop_after: int | None = None) -> None:
        super().__init__()
        self.waits: list[float] = []
        self._stop_after = stop_after

    def wait(self, timeout: float | None = None) -> bool:
        assert timeout is not None
        self.waits.append(timeout)
        if self._stop_after is not None and len(self.waits) >= self._stop_after:
            self.set()
        return self.is_set()


def _failing(times: int, result: str = "done") -> Callable[[], str]:
    calls = [0]

    def action() -> str:
        calls[0] += 1
        if calls[0] <= times:
            raise OperationalError("SELECT 1", {}, Exception("server closed the connection unexpectedly"))
        return result

    return action


def test_an_outage_is_said_once_retried_with_a_bounded_backoff_and_its_end_said(
    capsys: pytest.CaptureFixture[str],
) -> None:
    stop = _Recorded()
    shown = Shown(stop)
    assert shown.patiently(_failing(9)) == "done"
    assert stop.waits == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0, 30.0]
    assert stop.waits[0] == FIRST_RETRY_S
    assert max(stop.waits) == MAX_RETRY_S
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2, err
    assert err[0].startswith("warning: database ")
    assert "server closed the connection unexpectedly" in err[0]
    assert err[1] == "the database is reachable again: recording"

    assert shown.patiently(_failing(2)) == "done"  # a second outage: said again, and the backoff anew
    assert stop.waits[-2:] == [1.0, 2.0]
    assert len(capsys.readouterr().err.splitlines()) == 2
    assert shown.patiently(lambda: "fine") == "fine"
    assert capsys.readouterr().err == ""


def test_told_to_stop_during_an_outage_it_gives_up_quietly(capsys: pytest.CaptureFixture[str]) -> None:
    stop = _Recorded(stop_after=3)
    assert Shown(stop).patiently(_failing(100)) is None
    assert len(stop.waits) == 3
    assert capsys.readouterr().err.count("warning:") == 1


def test_without_a_stop_event_the_outage_is_raised() -> None:
    with pytest.raises(OperationalError):
        Shown().patiently(_failing(1))


def test_other_errors_are_not_taken_for_an_outage() -> None:
    def broken() -> str:
        raise ValueError("a bug")

    with pytest.raises(ValueError, match="a bug"):
        Shown(_Recorded()).patiently(broken)
