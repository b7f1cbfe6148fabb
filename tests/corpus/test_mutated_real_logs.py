"""Every real agent log of the corpora, spoiled a little: one value replaced by a hostile one (a huge or
negative number, a boolean, null, an empty string or container, a lone surrogate, an impossible date), a
key removed, or an object turned into a scalar. Whatever a writer, a disk or a hand did to the file, the
readers answer with their own clear errors (a skipped line with its reason, or one `SummarizerError` that
says what and where), never an exception of Python's own: `summarizer ingest` would print a traceback and
`watch` or a hook would stop on one bad line. The same mutations go through the line parser `watch` uses
for each followed format. Seeded per file, so a failure names a mutation that reproduces (MUTATION_SEED=N
explores other mutations)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from summarizer.domain.errors import SummarizerError
from summarizer.ingest import ReadNotes, iter_stream_records
from summarizer.ingest.formats.registry import format_named
from summarizer.ingest.problems import Problem
from tests.corpus.manifest import Entry, entries

pytestmark = pytest.mark.usefixtures("corpora")

MUTATIONS_PER_FILE = 40
JSONL_LINES_READ = 60
"""How much of a JSON Lines file is fed to the readers (the mutations land in these lines)."""
HOSTILE: tuple[Any, ...] = (
    10**20,
    1e20,
    -1,
    -(10**15),
    True,
    None,
    "",
    "x",
    [],
    {},
    1.5,
    0,
    "9999-99-99T99:99:99Z",
    "2025-01-01T00:00:00+99:00",
    "\ud800",
    "\x00",
)
Path_ = tuple[str | int, ...]


def _paths(value: Any, at: Path_ = ()) -> Iterator[Path_]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _paths(inner, (*at, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _paths(inner, (*at, index))
    if at:
        yield at


def _mutated(value: Any, rng: random.Random) -> tuple[Any, str]:
    """A copy of `value` with one place spoiled, and what was done (for the failure message)."""
    copy = json.loads(json.dumps(value))
    places = list(_paths(copy))[:5_000]
    if not places:
        return rng.choice(HOSTILE), "the whole value replaced"
    where = rng.choice(places)
    parent = copy
    for step in where[:-1]:
        parent = parent[step]
    last = where[-1]
    if isinstance(parent, dict) and rng.random() < 0.2:
        del parent[last]
        return copy, f"{list(where)} removed"
    new = rng.choice(HOSTILE)
    parent[last] = new
    return copy, f"{list(where)} = {new!r}"


def _encode(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True)  # a lone surrogate stays an escape, as a writer would put it


def _read(data: bytes, entry: Entry) -> None:
    fmt = "auto" if entry.format == "*" else entry.format
    notes = ReadNotes()
    for _ in iter_stream_records(io.BytesIO(data), entry.path, fmt, entry.agent, 1_000_000, notes=notes):
        pass


def _follow(lines: list[Any], entry: Entry) -> None:
    fmt = format_named(entry.format)
    if fmt.follow is None:
        return
    parser = fmt.follow(entry.agent, {})
    for number, obj in enumerate(lines, start=1):
        if isinstance(obj, dict):
            with contextlib.suppress(Problem):
                parser.feed(obj, f"{entry.path}:{number}")


def _cases() -> list[Any]:
    return [
        pytest.param(e, id=e.path)
        for e in entries()
        if e.file.suffix in (".json", ".jsonl", ".traj") and e.format not in ("*", "aider")
    ]


@pytest.mark.parametrize("entry", _cases())
def test_a_spoiled_real_log_gets_the_readers_own_errors_never_a_crash(entry: Entry) -> None:
    text = entry.file.read_text(encoding="utf-8", errors="replace")
    rng = random.Random(zlib.crc32(entry.path.encode()) ^ int(os.environ.get("MUTATION_SEED", "0")))
    try:
        document, jsonl = json.loads(text), False
    except json.JSONDecodeError:  # JSON Lines, whatever the file's name
        lines = [json.loads(line) for line in text.splitlines()[:JSONL_LINES_READ] if line.strip()]
        jsonl = True
    for n in range(MUTATIONS_PER_FILE):
        if jsonl:
            at = rng.randrange(len(lines))
            spoiled, what = _mutated(lines[at], rng)
            changed = [*lines[:at], spoiled, *lines[at + 1 :]]
            data = "\n".join(_encode(obj) for obj in changed).encode()
            what = f"line {at + 1}: {what}"
        else:
            spoiled, what = _mutated(document, rng)
            data = _encode(spoiled).encode()
        try:
            _read(data, entry)
            if jsonl:
                _follow(changed, entry)
        except SummarizerError:
            pass  # the reader's own error: the CLI prints it as FILE: reason
        except Exception as exc:  # any other exception is the failure this test looks for
            pytest.fail(f"mutation {n} ({what}): {type(exc).__name__}: {exc}")
