"""What recording costs: messages per second through the store's recording path, against the release
before recall.

    uv run python benchmarks/recording_bench.py                                  # PostgreSQL, calls of 100
    uv run python benchmarks/recording_bench.py --per-call 1 --messages 5000     # a live host
    uv run python benchmarks/recording_bench.py --database sqlite [--per-call 1 --messages 5000]

The same messages (50 agents, 24 words each drawn from a skewed vocabulary, user and assistant in turn,
a 2,000-token window so evictions run all along) are recorded in calls of `--per-call` three times, each
in a fresh process on a fresh database:

- `this tree`: the code as it is, the search index kept in the recording transaction;
- `this tree, no search index`: the same code with the search objects dropped after migrating (the
  PostgreSQL `tsvector` column and GIN index; the SQLite FTS5 table and its triggers): what the index
  itself costs;
- `before recall`: the release before recall (git `--baseline`, default the commit before the search
  index was added), taken with `git archive` into a temporary directory and run with its own code and
  migrations: the throughput recall's target (within 10% of it) is measured against.

Each figure is the median of `--rounds` runs (default 3), the runs interleaved so that a machine busy for
a while weighs on all three alike.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BEFORE_RECALL = "0bbb9e9"
"""The last commit before the search index (migration 0009) was added."""
VOCABULARY = 50_000
WORDS_PER_MESSAGE = 24
AGENTS = 50

_RELEASE_FILES = ("summarizer", "migrations", "alembic.ini", "benchmarks")
_DROP_SEARCH = {
    "postgresql": ("DROP INDEX ix_messages_search", "ALTER TABLE messages DROP COLUMN search_document"),
    "sqlite": (
        "DROP TRIGGER agents_search_delete",
        "DROP TABLE message_search",
    ),
}


# ----- one run (this part also runs inside the extracted older release: stable APIs only) ---------------


def batches(messages: int, per_call: int) -> list[list[tuple[str, Any]]]:
    from summarizer.domain.kinds import Kind
    from summarizer.domain.messages import NewMessage

    rng = random.Random(11)
    words = [f"w{int((rng.random() ** 4) * VOCABULARY)}" for _ in range(20_000)]
    base = datetime(2026, 1, 1, tzinfo=UTC)
    out = []
    for b in range(messages // per_call):
        batch = []
        for i in range(per_call):
            n = b * per_call + i
            kind = Kind.USER if n % 2 == 0 else Kind.ASSISTANT
            content = " ".join(rng.choice(words) for _ in range(WORDS_PER_MESSAGE))
            at = base + timedelta(seconds=n)
            batch.append((f"rec-{(n // 100) % AGENTS}", NewMessage(kind, content, tokens=30, created_at=at)))
        out.append(batch)
    return out


@contextmanager
def _database(kind: str) -> Iterator[Any]:
    from summarizer.composition import build_database
    from summarizer.settings import LLMChoice, Settings
    from summarizer.storage.sql.migrations import upgrade

    if kind == "postgresql":
        from benchmarks.pg import scratch_postgres

        with scratch_postgres("summarizer_recording") as db:
            yield db
        return
    with tempfile.TemporaryDirectory(prefix="recording-") as tmp:
        db = build_database(
            Settings(data_dir=Path(tmp), database_url="", broker_url="", llm=LLMChoice.OFFLINE)
        )
        upgrade(db)
        try:
            yield db
        finally:
            db.dispose()


def run_once(kind: str, messages: int, per_call: int, drop_search: bool) -> float:
    """Messages per second recording `messages` in calls of `per_call` on a fresh database."""
    from sqlalchemy import text

    from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig

    work = batches(messages, per_call)
    with _database(kind) as db:
        if drop_search:
            with db.write() as conn:
                for statement in _DROP_SEARCH[kind]:
                    conn.execute(text(statement))
            # SQLite's search rows are written by the recording code (storage/sqlite/search_rows.py): with
            # the table gone, its dialect writes none.
            from dataclasses import replace

            from summarizer.storage.sql.dialect import register

            register(replace(db.dialect, index_new_messages=lambda conn, spans: None))
        store = ConversationStore(db, StoreConfig(window_tokens=2000, batch_size=10))
        started = time.perf_counter()
        for batch in work:
            store.record_many(batch)
        return messages / (time.perf_counter() - started)


# ----- the comparison ---------------------------------------------------------------------------------


def extract(ref: str, into: Path) -> Path:
    """The files of `ref` a run needs (package, migrations, alembic.ini, benchmarks/pg.py) under `into`,
    with this script beside them; nothing in the repository is written."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", ref, *_RELEASE_FILES],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    shutil.copy(Path(__file__), into / "benchmarks" / "recording_run.py")
    return into / "benchmarks" / "recording_run.py"


def _child(script: Path, kind: str, messages: int, per_call: int, drop_search: bool) -> float:
    command = [sys.executable, str(script), "run", "--database", kind, "--messages", str(messages)]
    command += ["--per-call", str(per_call)] + (["--drop-search"] if drop_search else [])
    done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=script.parents[1])
    return float(json.loads(done.stdout.strip().splitlines()[-1])["messages_per_s"])


def compare(kind: str, messages: int, per_call: int, baseline: str, rounds: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="recording-before-") as tmp:
        before = extract(baseline, Path(tmp))
        here = Path(__file__).resolve()
        runs: dict[str, list[float]] = {"this_tree": [], "this_tree_no_search_index": [], "before_recall": []}
        for _ in range(rounds):
            runs["this_tree"].append(_child(here, kind, messages, per_call, False))
            runs["this_tree_no_search_index"].append(_child(here, kind, messages, per_call, True))
            runs["before_recall"].append(_child(before, kind, messages, per_call, False))
    medians = {name: round(statistics.median(values)) for name, values in runs.items()}
    now, bare, then = medians["this_tree"], medians["this_tree_no_search_index"], medians["before_recall"]
    return {
        "database": kind,
        "messages": messages,
        "per_call": per_call,
        "baseline": baseline,
        "messages_per_s": medians,
        "runs": {name: [round(v) for v in values] for name, values in runs.items()},
        "against_before_recall": f"{(now / then - 1) * 100:+.1f}%",
        "search_index_cost": f"{(now / bare - 1) * 100:+.1f}%",
        "target": "met" if now >= 0.9 * then else "missed",
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("part", nargs="?", choices=("compare", "run"), default="compare")
    parser.add_argument("--database", choices=("postgresql", "sqlite"), default="postgresql")
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--per-call", type=int, default=100, help="messages per recording call (1: live)")
    parser.add_argument("--baseline", default=BEFORE_RECALL, help="git ref of the release compared against")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--drop-search", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part == "run":
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        rate = run_once(args.database, args.messages, args.per_call, args.drop_search)
        print(json.dumps({"messages_per_s": rate}))
        return
    print(
        json.dumps(compare(args.database, args.messages, args.per_call, args.baseline, args.rounds), indent=2)
    )


if __name__ == "__main__":
    main()
