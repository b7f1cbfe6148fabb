"""LoCoMo, a public benchmark of long multi-session conversations, read for the memory benchmarks.

LoCoMo (Maharana et al., ACL 2024, https://github.com/snap-research/locomo) holds ten two-person
conversations of up to 35 sessions each, spread over months, with questions whose evidence is tied to
turns (`D3:5`: session 3, turn 5) and, in its newer release, observations (facts) tied to turns too. Its
licence (CC BY-NC 4.0) keeps it out of this repository: the benchmarks read it from a path given with
`--locomo`, from `$SUMMARIZER_LOCOMO`, from `../shared/corpora/locomo/` beside the project, or from the
cache (`~/.cache/summarizer/locomo/`), and download
`data/locomo10.json` from the project's GitHub repository into that cache when none is there.

Both published layouts are read: `locomo10.json` (a list of samples, each with `conversation`, `qa` and
`observation`) and the earlier `locomo10.zip` (one JSON file per conversation, sessions and `qa` at the
top level, no observations).
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from summarizer.domain.recall_time import MONTH_NUMBERS

DOWNLOAD_URL = "https://raw.githubusercontent.com/snap-research/locomo/main/data/locomo10.json"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "summarizer" / "locomo"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "locomo"
"""Where a developer's checkout finds the shared copy of public corpora (beside the project's root)."""
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_WHEN = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I)


class LocomoMissing(Exception):
    """The data set is neither at the given path, nor cached, nor downloadable."""


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    at: datetime
    """The session's start time (LoCoMo dates sessions, not turns)."""


@dataclass(frozen=True)
class Question:
    text: str
    answer: str
    evidence: tuple[str, ...]
    category: str


@dataclass(frozen=True)
class Observation:
    """A gold fact about a speaker, tied to the turns that state it."""

    speaker: str
    text: str
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speaker_a: str
    speaker_b: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]
    observations: tuple[Observation, ...]

    def turn(self, dia_id: str) -> Turn | None:
        return {t.dia_id: t for t in self.turns}.get(dia_id)


def parse_when(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> an aware UTC datetime."""
    match = _WHEN.match(text)
    if match is None:
        raise ValueError(f"unreadable LoCoMo session time {text!r}")
    hour, minute, half, day, month, year = match.groups()
    h = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    return datetime(int(year), MONTH_NUMBERS[month.lower()], int(day), h, int(minute), tzinfo=UTC)


def _turns(conversation: Mapping[str, Any]) -> list[Turn]:
    sessions = sorted(
        (int(m.group(1)), key) for key in conversation if (m := _SESSION_KEY.match(key)) is not None
    )
    turns: list[Turn] = []
    for number, key in sessions:
        when = conversation.get(f"{key}_date_time")
        if not isinstance(when, str) or not conversation[key]:
            continue
        at = parse_when(when)
        for raw in conversation[key]:
            text = str(raw.get("text", ""))
            caption = raw.get("blip_caption")
            if caption:
                text = f"{text} [shares {caption}]"
            turns.append(Turn(str(raw["dia_id"]), str(raw["speaker"]), text, number, at))
    return turns


def _questions(raw: Iterable[Mapping[str, Any]]) -> list[Question]:
    out = []
    for q in raw:
        answer = q.get("answer", q.get("adversarial_answer", ""))
        evidence = tuple(str(e).strip() for e in q.get("evidence", []) if str(e).strip())
        category = CATEGORIES.get(int(q.get("category", 0)), "other")
        out.append(Question(str(q["question"]), str(answer), evidence, category))
    return out


def _observations(raw: Mapping[str, Any] | None) -> list[Observation]:
    out: list[Observation] = []
    for per_session in (raw or {}).values():
        for speaker, facts in (per_session or {}).items():
            for fact in facts or []:
                if isinstance(fact, list) and len(fact) >= 2:
                    ids = fact[1] if isinstance(fact[1], list) else [fact[1]]
                    ids = [i for part in ids for i in str(part).replace(",", ";").split(";")]
                    evidence = tuple(i.strip() for i in ids if i.strip())
                    out.append(Observation(str(speaker), str(fact[0]), evidence))
    return out


def _sample(sample_id: str, conversation: Mapping[str, Any], qa: Any, observation: Any) -> Conversation:
    return Conversation(
        sample_id=sample_id,
        speaker_a=str(conversation.get("speaker_a", "A")),
        speaker_b=str(conversation.get("speaker_b", "B")),
        turns=tuple(_turns(conversation)),
        questions=tuple(_questions(qa or [])),
        observations=tuple(_observations(observation)),
    )


def read_locomo(path: Path) -> list[Conversation]:
    """Read `locomo10.json`, `locomo10.zip` or a folder of the zip's per-conversation files."""
    if path.is_dir():
        files = sorted(path.rglob("*.json"))
        return [_sample(f"conv-{f.stem}", raw, raw.get("qa"), None) for f in files for raw in [_load(f)]]
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            names = sorted(n for n in archive.namelist() if n.endswith(".json"))
            return [
                _sample(f"conv-{Path(n).stem}", raw, raw.get("qa"), None)
                for n in names
                for raw in [json.loads(archive.read(n))]
            ]
    samples = _load(path)
    return [
        _sample(str(s.get("sample_id", i)), s["conversation"], s.get("qa"), s.get("observation"))
        for i, s in enumerate(samples)
    ]


def _load(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def locate(explicit: str | None = None, *, download: bool = True) -> Path:
    """The data set's path: explicit, $SUMMARIZER_LOCOMO, the cache, or a fresh download into the cache."""
    for candidate in (explicit, os.environ.get("SUMMARIZER_LOCOMO")):
        if candidate:
            path = Path(candidate).expanduser()
            if not path.exists():
                raise LocomoMissing(f"{path}: no such file or folder")
            return path
    for folder in (SHARED, CACHE):
        for name in ("locomo10.json", "locomo10.zip"):
            if (folder / name).exists():
                return folder / name
    if not download:
        raise LocomoMissing(f"LoCoMo is not in {CACHE}; pass --locomo PATH")
    target = CACHE / "locomo10.json"
    CACHE.mkdir(parents=True, exist_ok=True)
    try:
        with urllib.request.urlopen(DOWNLOAD_URL, timeout=30) as response:
            body = response.read()
        json.loads(body)
    except (OSError, ValueError) as error:
        raise LocomoMissing(
            f"could not download LoCoMo from {DOWNLOAD_URL} ({error}); download data/locomo10.json from "
            "https://github.com/snap-research/locomo and pass --locomo PATH"
        ) from error
    partial = target.with_suffix(".part")
    partial.write_bytes(body)
    partial.replace(target)
    return target


def load(explicit: str | None = None) -> list[Conversation]:
    return read_locomo(locate(explicit))
