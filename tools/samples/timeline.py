"""Working-hours timestamps: mornings start around nine, lunch happens, nights and weekends are gaps."""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta, timezone

ZONE = timezone(timedelta(hours=1))
FIRST_DAY = date(2024, 3, 4)


def working_days(count: int, first: date = FIRST_DAY) -> list[date]:
    days: list[date] = []
    day = first
    while len(days) < count:
        if day.weekday() < 5:
            days.append(day)
        day += timedelta(days=1)
    return days


class Clock:
    """The conversation's time; it only moves forward, so timestamps never decrease."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self.now = datetime.combine(FIRST_DAY, time(9), ZONE)
        self._lunched = False

    def begin_day(self, day: date) -> None:
        start = datetime.combine(day, time(8, 40), ZONE) + timedelta(minutes=self._rng.randint(0, 45))
        self.now = max(self.now, start)
        self._lunched = False

    def tick(self, low: float, high: float) -> None:
        self.now += timedelta(seconds=round(self._rng.uniform(low, high)))

    def pause(self) -> None:
        """The gap before the user's next message: reading, thinking, meetings, lunch."""
        late = self.now.time() >= time(16)
        self.tick(120, 900 if late else 1800)
        if not late and self._rng.random() < 0.06:
            self.tick(1200, 3600)
        if not self._lunched and self.now.time() >= time(12, 10):
            self._lunched = True
            self.tick(2400, 4200)

    def stamp(self) -> str:
        return self.now.isoformat(timespec="seconds")
