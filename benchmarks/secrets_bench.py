"""Credential masking as a classifier: recall on planted secrets, false positives on real logs, throughput.

    uv run python benchmarks/secrets_bench.py [--repeat 3] [--show 40]

- Recall: the planted set of `benchmarks/secrets_planted.py` (seeded; every shape the masking claims, each
  in prose, Markdown, JSON, shell, code, tool input and tool output) is masked as recording masks a
  message. A secret counts as found when no 8 characters of it in a row survive (the mask keeps the last
  four). Target: 99% or more.
- False positives: every message of every real log under ../shared/corpora (agent-logs-1, -2, -3 and
  project-fixtures), read with the project's own readers (a file no reader takes is masked as raw text).
  None of these holds a real credential that the masking is meant to keep (the report lists each change,
  so a real-looking secret can be judged and counted apart); target: 0 characters changed.
- Throughput: MB of real messages masked per CPU second (median of runs).
"""

from __future__ import annotations

import argparse
import difflib
import json
import statistics
import sys
import time
from pathlib import Path

from benchmarks.secrets_planted import Planted, planted_set
from summarizer.domain.credentials import mask_credentials, mask_message
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.ingest import read_records

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
FOLDERS = ("agent-logs-1", "agent-logs-2", "agent-logs-3", "project-fixtures")
NOT_LOGS = {"SOURCES.md", "README.md", "LICENSE"}
LIMIT = 64 * 1_048_576
WINDOW = 8
RECALL_TARGET = 0.99
REAL_LOOKING = frozenset({"a9B7$#fG3&Z1"})
"""Values in the corpora that read as real secrets, counted apart from false positives: the output of a
password generator tool in agent-logs-1/glaive_toolcall_40.json (a generated password, echoed back by the
assistant). Masking it is right."""


def text_of(message: NewMessage) -> str:
    tool_input = json.dumps(message.input, ensure_ascii=False) if message.input is not None else ""
    return message.content + tool_input


def leaked(planted: Planted) -> bool:
    """True when 8 characters in a row of the secret survive masking (and were not in the text around it)."""
    before = text_of(planted.message).replace(planted.secret, "")
    after = text_of(mask_message(planted.message))
    secret = planted.secret
    windows = {secret[i : i + WINDOW] for i in range(max(1, len(secret) - WINDOW + 1))}
    return any(w in after and w not in before for w in windows)


def recall() -> tuple[int, int, list[Planted]]:
    planted = planted_set()
    missed = [p for p in planted if leaked(p)]
    return len(planted), len(planted) - len(missed), missed


def corpus_files() -> list[Path]:
    """Every log file of the corpora: all files but the notes about them (Markdown other than chat logs)."""
    files = (p for folder in FOLDERS for p in (CORPORA / folder).rglob("*") if p.is_file())
    return sorted(p for p in files if p.name not in NOT_LOGS and (p.suffix != ".md" or ".chat." in p.name))


def messages_of(path: Path) -> list[NewMessage]:
    """The file's messages as recording reads them; a file no reader takes, as one message per line."""
    try:
        return [record.message for record in read_records(path, "auto", "bench", LIMIT)]
    except Exception:  # any file the readers refuse is still measured, as raw text
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        return [NewMessage(Kind.TOOL_RESULT, line, tool_call_id="raw") for line in lines if line.strip()]


def changes(before: str, after: str) -> list[tuple[str, str]]:
    """Each changed line: (the original, what masking made of it), both cut to the changed part."""
    found = []
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        old, new = "\n".join(before.splitlines()[i1:i2]), "\n".join(after.splitlines()[j1:j2])
        start = len(_common_prefix(old, new))
        end = len(_common_prefix(old[start:][::-1], new[start:][::-1]))
        found.append((old[start : len(old) - end], new[start : len(new) - end]))
    return found


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def false_positives(files: list[Path], show: int) -> tuple[int, int, int, int, int]:
    total = altered = changed_chars = size = real_looking = 0
    shown = 0
    for path in files:
        found = messages_of(path)
        size += sum(len(text_of(m).encode("utf-8")) for m in found)
        total += len(found)
        file_altered = 0
        for message in found:
            masked = mask_message(message)
            if masked is message:
                continue
            spans = changes(text_of(message), text_of(masked))
            if all(original in REAL_LOOKING for original, _ in spans):
                real_looking += 1
            else:
                file_altered += 1
            for original, replacement in spans:
                changed_chars += 0 if original in REAL_LOOKING else len(original)
                if shown < show:
                    label = "real-looking secret" if original in REAL_LOOKING else "FALSE POSITIVE"
                    print(f"      {label} in {path.name}: {original!r} -> {replacement!r}")
                    shown += 1
        altered += file_altered
        print(f"  {path.relative_to(CORPORA)!s:<76} {len(found):>6} messages {file_altered:>3} altered")
    return total, altered, changed_chars, size, real_looking


def throughput(messages: list[NewMessage], megabytes: float, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        started = time.process_time()  # CPU time: steadier than the clock on a shared machine
        for message in messages:
            mask_message(message)
        runs.append(time.process_time() - started)
    return megabytes / statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per throughput measurement (median)")
    parser.add_argument("--show", type=int, default=40, help="changes in the real logs to print")
    args = parser.parse_args()
    if not CORPORA.is_dir():
        sys.exit(f"secrets_bench: {CORPORA} is missing (the real logs live there)")

    count, found, missed = recall()
    shapes = len({p.shape for p in planted_set()})
    print(
        f"Recall: {found}/{count} planted secrets masked ({found / count:.2%}; {shapes} shapes; target 99%)"
    )
    for planted in missed:
        print(
            f"  missed {planted.shape} in {planted.context}: {text_of(mask_message(planted.message))[:160]!r}"
        )

    files = corpus_files()
    print(f"\nFalse positives over {len(files)} real logs under {CORPORA}:")
    total, altered, changed_chars, size, real_looking = false_positives(files, args.show)
    print(f"  total: {total} messages, {size / 1e6:.2f} MB; false positives: {altered} messages altered,")
    print(
        f"  {changed_chars} characters changed (target 0); {real_looking} messages hold a real-looking secret"
    )

    real = [m for path in files for m in messages_of(path)]
    rate = throughput(real, size / 1e6, args.repeat)
    print(f"\nThroughput: {rate:.1f} MB/s of real messages (CPU time, median of {args.repeat})")
    sample = "password=Tr0ub4dor&3xQ9z and sk-ant-api03-" + "Zq8vLr2NtY5wKd9sFb1X" * 5 + "AA\n"
    assert mask_credentials(sample) != sample
    if found / count < RECALL_TARGET or altered:
        sys.exit(1)


if __name__ == "__main__":
    main()
