"""`summarizer watch`: what following a log costs per appended line, as the log grows.

    uv run python benchmarks/follow_bench.py [--database sqlite|postgresql] [--sizes 1000,10000,100000]

For each size, a Claude Code transcript of that many lines (a user prompt, a tool call, its result and an
answer per exchange, each line chained to the one before by `parentUuid`) is written and followed once
(the catch-up: lines per second), then grown by `--append` lines at a time, `--rounds` times, and each
`Follower.follow` of the grown file is timed: p50 and p95 per round and per line. Reading from the kept
position, the cost per appended line should not depend on how long the file already is.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.pg import scratch_postgres
from summarizer.composition import build_database
from summarizer.composition.follow import build_follower
from summarizer.service.follow import Follower
from summarizer.settings import LLMChoice, Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.migrations import upgrade

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def transcript_lines(first: int, count: int, session: str) -> list[str]:
    """Lines `first` .. `first + count - 1` of a synthetic transcript (four lines per exchange)."""
    lines = []
    for n in range(first, first + count):
        turn, step = divmod(n, 4)
        at = (T0 + timedelta(seconds=n)).isoformat().replace("+00:00", "Z")
        call = f"call-{turn}"
        content: object
        if step == 0:
            kind, content = "user", f"Please fix failing test number {turn} in the auth module"
        elif step == 1:
            kind = "assistant"
            content = [
                {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": f"pytest -k t{turn}"}}
            ]
        elif step == 2:
            kind = "user"
            content = [
                {"type": "tool_result", "tool_use_id": call, "content": f"1 failed: t{turn} expected 200"}
            ]
        else:
            kind, content = (
                "assistant",
                [{"type": "text", "text": f"Fixed test {turn}: the token check was off."}],
            )
        event = {
            "type": kind,
            "uuid": f"u{n}",
            "parentUuid": f"u{n - 1}" if n else None,
            "sessionId": session,
            "timestamp": at,
            "isSidechain": False,
            "message": {"role": kind, "content": content},
        }
        lines.append(json.dumps(event) + "\n")
    return lines


@contextmanager
def database(kind: str, tmp: Path) -> Iterator[Database]:
    if kind == "postgresql":
        with scratch_postgres("summarizer_follow") as db:
            yield db
        return
    settings = _settings(tmp)
    db = build_database(settings)
    upgrade(db)
    try:
        yield db
    finally:
        db.dispose()


def _settings(tmp: Path) -> Settings:
    return Settings(data_dir=tmp, database_url="", broker_url="", llm=LLMChoice.OFFLINE, window_tokens=4000)


def measure(follower: Follower, path: Path, size: int, append: int, rounds: int) -> dict[str, object]:
    session = path.stem
    path.write_text("".join(transcript_lines(0, size, session)), encoding="utf-8")
    started = time.perf_counter()
    caught_up = follower.follow(path)
    catch_up = time.perf_counter() - started
    per_round: list[float] = []
    written = size
    for _ in range(rounds):
        with path.open("a", encoding="utf-8") as out:
            out.write("".join(transcript_lines(written, append, session)))
        written += append
        started = time.perf_counter()
        done = follower.follow(path)
        per_round.append((time.perf_counter() - started) * 1000)
        assert done.problem is None, done.problem
    per_round.sort()
    p50 = statistics.median(per_round)
    p95 = per_round[max(0, int(len(per_round) * 0.95) - 1)]
    return {
        "lines": size,
        "file_mb": round(path.stat().st_size / 1e6, 1),
        "catch_up_lines_per_s": round(size / catch_up),
        "catch_up_stored": caught_up.stored,
        "append_round_ms_p50": round(p50, 2),
        "append_round_ms_p95": round(p95, 2),
        "per_appended_line_ms_p50": round(p50 / append, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--append", type=int, default=8, help="lines appended per round (two exchanges)")
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="follow-bench-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            run = Path(tmp) / f"run-{size}"
            run.mkdir()
            with database(args.database, run) as db:
                follower = build_follower(_settings(run), db)
                results.append(
                    measure(follower, run / f"session-{size}.jsonl", size, args.append, args.rounds)
                )
            print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    print(json.dumps({"database": args.database, "results": results}, indent=2))


if __name__ == "__main__":
    main()
