"""Credential masking: false positives on real conversations, and the cost per megabyte of text.

    uv run python benchmarks/credentials_bench.py [--repeat 3] [--megabytes 4]

Reads the bundled sample (summarizer/samples/coding_agent.jsonl), the real public logs under
../shared/corpora/project-fixtures/ (beside the project's root; SUMMARIZER_CORPORA names another corpora
folder) and every fixture under tests/fixtures/ with the project's own readers, and masks each message as
recording does. Reports:

- altered messages per file (target: 0; none of these files holds a real credential, so any change is a
  false positive), with the first few changes shown;
- the cost per MB of the real text (what recording pays), of text with a credential every 2 KB, and of
  hostile inputs (a megabyte of `sk-`, `a.a.`, `password=`...), the worst case (target: linear, well
  under a second per MB).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from summarizer.domain.credentials import mask_credentials, mask_message
from summarizer.domain.messages import NewMessage
from summarizer.ingest import read_records
from summarizer.samples import sample_path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_SUFFIXES = {".json", ".jsonl", ".traj"}
LIMIT = 64 * 1_048_576
HOSTILE = {
    "sk- runs": "sk-",
    "a.a. runs": "a.a.",
    "password= runs": "password=",
    'password=" runs': 'password="',
    "eyJ- runs": "eyJ-",
    ":// runs": "://a:",
    "Bearer runs": "Bearer ",
    "AWS key ids": "AKIAZ7QWERTYUIOP9XQZ ",
    "PEM headers": "-----BEGIN PRIVATE KEY-----",
}
PLANTED = "ANTHROPIC_API_KEY=sk-ant-api03-Zq8vLr2NtY5wKd9sFb1XcHm4PjG7eA0uVo3iRy6TnQ-XYZW\n"


def real_files() -> list[Path]:
    corpora = Path(os.environ.get("SUMMARIZER_CORPORA") or ROOT.parent / "shared" / "corpora")
    folders = [corpora / "project-fixtures", ROOT / "tests" / "fixtures"]
    fixtures = sorted(p for d in folders for p in d.rglob("*") if p.suffix in FIXTURE_SUFFIXES)
    return [sample_path(), *fixtures]


def messages_of(path: Path) -> list[NewMessage]:
    return [record.message for record in read_records(path, "auto", "bench", LIMIT)]


def text_of(message: NewMessage) -> str:
    return message.content + (str(message.input) if message.input is not None else "")


def false_positives(files: list[Path]) -> tuple[int, int, int]:
    total = altered = size = 0
    for path in files:
        found = messages_of(path)
        changed = [m for m in found if mask_message(m) is not m]
        total += len(found)
        altered += len(changed)
        size += sum(len(text_of(m).encode("utf-8")) for m in found)
        name = path.relative_to(ROOT)
        print(f"  {name!s:<72} {len(found):>6} messages {len(changed):>3} altered")
        for message in changed[:3]:
            print(f"      {text_of(message)[:100]!r} -> {text_of(mask_message(message))[:100]!r}")
    return total, altered, size


def seconds_per_mb(work: Callable[[], object], megabytes: float, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        started = time.process_time()  # CPU time: steadier than the clock on a shared machine
        work()
        runs.append(time.process_time() - started)
    return statistics.median(runs) / megabytes


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (the median is reported)")
    parser.add_argument("--megabytes", type=float, default=4, help="size of the synthetic texts")
    args = parser.parse_args()

    files = real_files()
    print(f"False positives over {len(files)} real files:")
    total, altered, size = false_positives(files)
    print(f"  total: {total} messages, {size / 1e6:.2f} MB, {altered} altered (target 0)")

    real = [m for path in files for m in messages_of(path)]
    real_mb = sum(len(text_of(m).encode("utf-8")) for m in real) / 1e6
    print("\nCPU cost per MB (median of runs):")
    cost = seconds_per_mb(lambda: [mask_message(m) for m in real], real_mb, args.repeat)
    print(f"  {'real conversations (every message, as recording does)':<56} {cost * 1000:8.1f} ms/MB")
    filler = "Ran the tests: 3 passed, see src/auth/token.py and https://example.com/docs. " * 26
    planted = (filler[: 2048 - len(PLANTED)] + PLANTED) * int(args.megabytes * 512)
    cost = seconds_per_mb(lambda: mask_credentials(planted), len(planted) / 1e6, args.repeat)
    print(f"  {'text with a credential every 2 KB':<56} {cost * 1000:8.1f} ms/MB")
    worst = 0.0
    for name, unit in HOSTILE.items():
        hostile = unit * int(1_000_000 / len(unit))
        cost = seconds_per_mb(partial(mask_credentials, hostile), len(hostile) / 1e6, args.repeat)
        worst = max(worst, cost)
        print(f"  {'hostile: ' + name:<56} {cost * 1000:8.1f} ms/MB")
    print(f"  worst hostile case: {worst * 1000:.0f} ms/MB (target: well under 1000)")
    if altered:
        sys.exit(1)


if __name__ == "__main__":
    main()
