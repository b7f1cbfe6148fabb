"""LongMemEval, a second public benchmark of long chat histories, read for the memory benchmarks.

LongMemEval (Wu et al., ICLR 2025, https://github.com/xiaowu0162/LongMemEval; MIT) asks 500 questions, each
over a history of its own: about 50 timestamped user/assistant sessions (~115k tokens, ~490 turns in its
`_s` release), with the turns that hold the answer marked (`"has_answer": true`). Its question types are
single-session-user, single-session-assistant, single-session-preference, multi-session,
temporal-reasoning and knowledge-update; the 30 abstention questions (`_abs` ids) ask about things never
said and are left out, as LoCoMo's adversarial ones are. Its turns are long (a typical assistant turn is a
few hundred words), which is where it differs most from LoCoMo.

The data set is not bundled: it is read from `--longmemeval PATH`, from `$SUMMARIZER_LONGMEMEVAL`, from
`../shared/corpora/longmemeval/` beside the project, or from the cache (`~/.cache/summarizer/longmemeval/`),
as `longmemeval_s_cleaned.json` or `longmemeval_s.json` (the release's list of question records).

Each question becomes one `locomo.Conversation` (so the LoCoMo benchmarks' code runs on it unchanged):
speaker_a is the user, speaker_b the assistant, a turn's id is `S<session>:<turn>` (both from 1), a turn's
time is its session's date, and the one question's evidence is the turns marked `has_answer`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks import locomo

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "summarizer" / "longmemeval"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "longmemeval"
NAMES = ("longmemeval_s_cleaned.json", "longmemeval_s.json")
_WHEN = re.compile(r"^\s*(\d{4})/(\d{1,2})/(\d{1,2})(?:\s*\(\w+\))?(?:\s+(\d{1,2}):(\d{2}))?\s*$")


class LongMemEvalMissing(Exception):
    """The data set is neither at the given path, nor beside the project, nor cached."""


def parse_when(text: str) -> datetime:
    """'2023/05/20 (Sat) 02:21' -> an aware UTC datetime."""
    match = _WHEN.match(text)
    if match is None:
        raise ValueError(f"unreadable LongMemEval date {text!r}")
    year, month, day, hour, minute = match.groups()
    return datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), tzinfo=UTC)


def question_of(record: Mapping[str, Any]) -> locomo.Conversation:
    """One question record as a conversation of its own, its evidence the turns marked `has_answer`."""
    sessions = record["haystack_sessions"]
    dates = record.get("haystack_dates") or [None] * len(sessions)
    if len(dates) != len(sessions):
        raise ValueError(f"{record.get('question_id')}: {len(sessions)} sessions but {len(dates)} dates")
    turns: list[locomo.Turn] = []
    evidence: list[str] = []
    for s, (session, when) in enumerate(zip(sessions, dates, strict=True), start=1):
        at = parse_when(when) if isinstance(when, str) else datetime(2023, 1, 1, tzinfo=UTC)
        for t, turn in enumerate(session, start=1):
            dia = f"S{s}:{t}"
            speaker = "user" if turn.get("role") == "user" else "assistant"
            turns.append(locomo.Turn(dia, speaker, str(turn.get("content", "")), s, at))
            if turn.get("has_answer"):
                evidence.append(dia)
    question = locomo.Question(
        str(record["question"]), str(record.get("answer", "")), tuple(evidence), str(record["question_type"])
    )
    return locomo.Conversation(
        sample_id=str(record["question_id"]),
        speaker_a="user",
        speaker_b="assistant",
        turns=tuple(turns),
        questions=(question,),
        observations=(),
    )


def read_longmemeval(path: Path, *, limit: int | None = None) -> list[locomo.Conversation]:
    """The non-abstention questions of a LongMemEval file, each as a conversation (the first `limit`)."""
    with path.open(encoding="utf-8") as handle:
        records = json.load(handle)
    if not isinstance(records, list):
        raise ValueError(f"{path}: expected a list of question records, found {type(records).__name__}")
    kept = [r for r in records if not str(r.get("question_id", "")).endswith("_abs")]
    return [question_of(r) for r in kept[:limit]]


def locate(explicit: str | None = None) -> Path:
    """The data set's path: explicit, $SUMMARIZER_LONGMEMEVAL, beside the project, or the cache."""
    for candidate in (explicit, os.environ.get("SUMMARIZER_LONGMEMEVAL")):
        if candidate:
            path = Path(candidate).expanduser()
            if not path.exists():
                raise LongMemEvalMissing(f"{path}: no such file")
            return path
    for folder in (SHARED, CACHE):
        for name in NAMES:
            if (folder / name).exists():
                return folder / name
    raise LongMemEvalMissing(
        f"LongMemEval is not in {SHARED} or {CACHE}: download longmemeval_s_cleaned.json from the "
        "release named at https://github.com/xiaowu0162/LongMemEval and pass --longmemeval PATH"
    )


def load(explicit: str | None = None, *, limit: int | None = None) -> list[locomo.Conversation]:
    return read_longmemeval(locate(explicit), limit=limit)
