"""Recall quality on LongMemEval, the held-out second benchmark: does a question find its evidence turn?

    uv run python benchmarks/longmemeval_recall_bench.py [--longmemeval PATH] [--limit N]
        [--database sqlite|postgresql]

`benchmarks/longmemeval.py` says where the data set is read from and how each question becomes a
conversation of its own (about 50 sessions, ~490 turns). Everything else is the LoCoMo recall benchmark's
(`benchmarks/locomo_recall_bench.py`): each history is recorded as one agent through the store's own
recording path, the question is asked through `Recall.search` as written, top 10, and a result is a hit
when its exchange holds an evidence turn; any@1, any@5, any@10 and all@5 per question type, with the same
plain BM25 over the same exchanges in the same run, and the p50/p95 latency of `Recall.search`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import longmemeval
from benchmarks.locomo_recall_bench import ask_all, figures
from benchmarks.pg import scratch_database


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--longmemeval", help="longmemeval_s_cleaned.json (default: beside the project or cache)"
    )
    parser.add_argument("--limit", type=int, help="ask only the first N questions (a quick run)")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    args = parser.parse_args()
    try:
        conversations = longmemeval.load(args.longmemeval, limit=args.limit)
    except (longmemeval.LongMemEvalMissing, OSError, ValueError, KeyError) as error:
        sys.exit(f"longmemeval_recall_bench: {error}")
    with scratch_database(args.database, "summarizer_longmemeval") as db:
        asked, latencies, unaskable = ask_all(db, conversations)
    print(json.dumps({"database": args.database, **figures(asked, latencies, unaskable)}, indent=2))


if __name__ == "__main__":
    main()
