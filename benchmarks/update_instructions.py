"""CPU instructions one update costs in-process on PostgreSQL: a figure that does not move with the VM's speed.

    uv run python benchmarks/update_instructions.py            # needs valgrind (Debian package `valgrind`)
    uv run python benchmarks/update_instructions.py --agents 20

Wall-clock and CPU-time comparisons between two versions of the update path drown in this VM's speed swings
(up to 2x within minutes). Instructions executed do not: the script re-runs itself under callgrind, which
counts only what runs inside the measured loop (the loop runs inside `functools.reduce`, a C function
callgrind can switch counting on and off around), and prints instructions per update for the worker side
(the update service, SQLAlchemy, psycopg, the engine, the offline summarizer; not PostgreSQL, not Celery).
Runs of the same code agree within about 1%.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from sqlalchemy import update

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.workers_bench import load
from summarizer.composition import build_database, build_update_service
from summarizer.logs import configure_logging
from summarizer.service.results import Outcome
from summarizer.service.update import UpdateService
from summarizer.settings import load_settings
from summarizer.storage.sql.statements.schema import summary_update_queue
from tests.support.services import fresh_postgres_database, migrate
from tests.support.workload import WINDOW_TOKENS

MEASURED = "functools_reduce"


def backlog(service: UpdateService, done: int, agent_id: str) -> int:
    """Every update of `agent_id`'s backlog; returns `done` plus how many there were."""
    while True:
        result = service.run(agent_id)
        if result.outcome is not Outcome.OK:
            return done
        done += 1
        if not result.requeued:
            return done


def inner(agents: int) -> None:
    configure_logging(json=True)
    for url in fresh_postgres_database("summarizer_instructions"):
        migrate(url)
        with tempfile.TemporaryDirectory() as data:
            settings = load_settings(
                database_url=url,
                llm="offline",
                max_batch_exchanges=3,
                window_tokens=WINDOW_TOKENS,
                data_dir=Path(data),
            )
            db = build_database(settings)
            load(db, agents, 32)
            with db.write() as conn:
                conn.execute(update(summary_update_queue).values(state="pending"))
            service = build_update_service(settings, db)
            ids = [f"bench-{n}" for n in range(agents)]
            backlog(service, 0, ids[0])  # warm-up: imports, statement caches, prepared statements
            updates = functools.reduce(functools.partial(backlog, service), ids[1:], 0)
            print(f"updates={updates}", file=sys.stderr)
            db.dispose()


def outer(agents: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--collect-atstart=no",
                f"--toggle-collect={MEASURED}",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--inner",
                "--agents",
                str(agents),
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
            check=False,
        )
        updates = re.search(r"updates=(\d+)", run.stderr)
        collected = re.search(r"Collected : (\d+)", run.stderr)
        if run.returncode != 0 or updates is None or collected is None:
            sys.exit(f"the measured run failed (exit {run.returncode}):\n{run.stderr[-3000:]}")
        count, instructions = int(updates.group(1)), int(collected.group(1))
        print(
            f"updates={count} instructions={instructions:,} -> {instructions / count / 1e6:.2f} M per update"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--agents", type=int, default=12, help="agents of 10 updates each (the first warms up)"
    )
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        inner(args.agents)
    else:
        outer(args.agents)


if __name__ == "__main__":
    main()
