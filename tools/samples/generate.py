"""Generates the bundled sample: a multi-day coding-agent conversation in canonical JSON Lines.

Deterministic for a seed (one `random.Random`, no clock, no network), so the shipped file can be checked
against the generator in a test. Run `python -m tools.samples [PATH]` to regenerate it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tools.samples.exchanges import Ctx, Workday, run_task
from tools.samples.prose import ticket
from tools.samples.repo import Repo
from tools.samples.script import DAYS, FILLERS, SYSTEM_PROMPT, Day, Task
from tools.samples.timeline import Clock, working_days
from tools.samples.transcript import Transcript

MIN_EXCHANGES = 226
_PLANNED_BEFORE_FILLERS = 3


def generate(seed: int = 7) -> list[dict[str, Any]]:
    """The conversation's messages, as canonical records, oldest first."""
    rng = random.Random(seed)
    clock = Clock(rng)
    log = Transcript(rng, clock)
    repo = Repo()
    dates = working_days(len(DAYS))
    clock.begin_day(dates[0])
    log.system(SYSTEM_PROMPT)
    quotas = _quotas(rng, DAYS)
    remembered: list[Day] = []
    for date, day, quota in zip(dates, DAYS, quotas, strict=True):
        clock.begin_day(date)
        if day.clear_before:
            log.command("/clear")
            log.clear()
            remembered.clear()
        plan = _plan(rng, day, quota)
        work = Workday(day, tuple(remembered), plan, opening=ticket(rng, day, 100 + 7 * len(remembered)))
        ctx = Ctx(rng, log, repo, work)
        for position, task in enumerate(plan):
            ctx.work.remaining = plan[position + 1 :]
            run_task(ctx, task)
            if position == 0 and day.mark:
                log.command(f"/mark {day.slug}")
                log.mark(day.slug)
        remembered.append(day)
    return log.records


def _exchanges_of(task: Task) -> int:
    """An interrupted request is followed by the user's redirect: two exchanges."""
    return 2 if task.shape == "interrupt" else 1


def _quotas(rng: random.Random, days: Sequence[Day]) -> list[int]:
    """Exchanges per day: roughly even, at least the planned work, and enough in total."""
    quotas = [max(rng.randint(17, 21), sum(map(_exchanges_of, day.tasks)) + 4) for day in days]
    while sum(quotas) < MIN_EXCHANGES:
        quotas[rng.randrange(len(quotas))] += 1
    return quotas


def _plan(rng: random.Random, day: Day, quota: int) -> list[Task]:
    """The day's planned tasks in order, with everyday requests mixed in after the first few."""
    plan = list(day.tasks)
    fillers = quota - sum(map(_exchanges_of, plan))
    commit = Task("commit", FILLERS[2].ask)
    picks = [commit, *_distinct(rng, FILLERS, fillers - 1)]
    for filler in picks:
        plan.insert(rng.randint(_PLANNED_BEFORE_FILLERS, len(plan)), filler)
    return plan


def _distinct(rng: random.Random, pool: Sequence[Task], count: int) -> list[Task]:
    """`count` picks from `pool`, repeating one only once all have been used, as people vary requests."""
    picks: list[Task] = []
    while len(picks) < count:
        picks += rng.sample(list(pool), min(len(pool), count - len(picks)))
    return picks


def render(records: Sequence[dict[str, Any]]) -> str:
    """JSON Lines exactly as shipped: one compact object per line, UTF-8 kept as is."""
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("output", nargs="?", default="-", help="file to write, or - for stdout (default)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    text = render(generate(args.seed))
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
