"""Recall quality on LoCoMo: does a natural question find the turn that holds its answer?

    uv run python benchmarks/locomo_recall_bench.py [--locomo PATH] [--database sqlite|postgresql]

LoCoMo (Maharana et al., ACL 2024; CC BY-NC 4.0, not bundled: `benchmarks/locomo.py` says where it is
read from) holds ten conversations of two people over months, and questions whose evidence is tied to
turns. Each conversation is recorded as one agent through the store's own recording path into a fresh
database (the embedded SQLite default unless `--database postgresql`): speaker_a's turns as user
messages, speaker_b's as assistant messages, each at its session's time (plus a second per turn, to keep
their order). So an exchange is a turn of speaker_a with the turns of speaker_b that follow it; the turns
of speaker_b that open a conversation, before speaker_a first speaks, are its preamble, in no exchange.

Every question that is not adversarial (those ask about things never said) and names evidence is asked
through `Recall.search` as written, top 10. A result is a **hit** for an evidence turn when the result's
exchange holds that turn's message. Per question:
- any@k: some evidence turn is held by one of the first k results;
- all@k: every evidence turn is held by one of the first k results.
Evidence ids that name no turn of the conversation (a few are malformed in the data) are ignored; a
question left with no evidence turn in an exchange is not asked (counted as `unaskable`).

The baseline is a plain Okapi BM25 (k1 1.5, b 0.75, term frequencies, lower-cased words without the same
common English words, no stemming) over the same exchanges, their messages' text joined, computed in the
same run. Latency is the wall time of each `Recall.search` call (p50 and p95, ms).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import time
import zipfile
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import locomo
from benchmarks.pg import scratch_database
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.domain.recall import STOP_WORDS, InvalidQuery
from summarizer.service.recall import Recall
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.recall import SqlRecallStore
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig

TOP = 10
_WORD = re.compile(r"[^\W_]+")


@dataclass
class Asked:
    category: str
    recall: list[set[str]]
    """Per result of recall, best first: the evidence turns its exchange holds."""
    bm25: list[set[str]]
    evidence: set[str]


# ----- the plain baseline ---------------------------------------------------------------------------------


def words(text_: str) -> list[str]:
    return [w for w in _WORD.findall(text_.lower()) if w not in STOP_WORDS]


class PlainBM25:
    """Okapi BM25 over a fixed list of documents (term frequency, length normalisation, no stemming)."""

    def __init__(self, documents: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.docs = [Counter(words(d)) for d in documents]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.average = max(sum(self.lengths) / max(len(self.docs), 1), 1.0)
        df: Counter[str] = Counter(w for d in self.docs for w in d)
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}
        self.k1, self.b = k1, b

    def top(self, question: str, k: int) -> list[int]:
        terms = set(words(question))
        scores = []
        for i, doc in enumerate(self.docs):
            score = 0.0
            norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / self.average)
            for term in terms & doc.keys():
                tf = doc[term]
                score += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
            if score > 0:
                scores.append((-score, i))
        return [i for _, i in sorted(scores)[:k]]


# ----- recording and asking -------------------------------------------------------------------------------


def record(store: ConversationStore, agent: str, conversation: locomo.Conversation) -> None:
    store.record_many(
        [
            (
                agent,
                NewMessage(
                    Kind.USER if turn.speaker == conversation.speaker_a else Kind.ASSISTANT,
                    turn.text,
                    created_at=turn.at + timedelta(seconds=n),
                ),
            )
            for n, turn in enumerate(conversation.turns)
        ]
    )


def exchange_units(db: Database, agent: str, conversation: locomo.Conversation) -> dict[int, list[str]]:
    """Each exchange's turns (dia ids) in order; the i-th turn is the agent's message i + 1."""
    with db.read() as conn:
        rows = conn.execute(
            text("SELECT seq, exchange_id FROM messages WHERE agent_id = :a ORDER BY seq"), {"a": agent}
        ).all()
    units: dict[int, list[str]] = defaultdict(list)
    for (seq, exchange_id), turn in zip(rows, conversation.turns, strict=True):
        assert seq >= 1
        if exchange_id is not None:
            units[exchange_id].append(turn.dia_id)
    return dict(units)


def ask_all(db: Database, conversations: list[locomo.Conversation]) -> tuple[list[Asked], list[float], int]:
    store = ConversationStore(db, StoreConfig(window_tokens=0, batch_size=50))
    recall = Recall(SqlRecallStore(db))
    asked: list[Asked] = []
    latencies: list[float] = []
    unaskable = 0
    for conversation in conversations:
        agent = f"locomo-{conversation.sample_id}"
        record(store, agent, conversation)
        units = exchange_units(db, agent, conversation)
        held = {dia: exchange_id for exchange_id, dias in units.items() for dia in dias}
        ids = list(units)
        texts = {t.dia_id: t.text for t in conversation.turns}
        baseline = PlainBM25([" ".join(texts[d] for d in units[x]) for x in ids])
        for question in conversation.questions:
            if question.category == "adversarial":
                continue
            evidence = {e for e in question.evidence if e in held}
            if not evidence:
                unaskable += 1
                continue
            started = time.perf_counter()
            try:
                page = recall.search(agent, question.text, limit=TOP)
                found = [hit.exchange_id for hit in page.hits]
            except InvalidQuery:
                found = []
            latencies.append((time.perf_counter() - started) * 1000)
            plain = [ids[i] for i in baseline.top(question.text, TOP)]
            asked.append(
                Asked(
                    question.category,
                    [evidence & set(units[x]) for x in found],
                    [evidence & set(units[x]) for x in plain],
                    evidence,
                )
            )
    return asked, latencies, unaskable


# ----- figures --------------------------------------------------------------------------------------------


def any_at(results: list[set[str]], k: int) -> bool:
    return any(results[:k])


def all_at(results: list[set[str]], evidence: set[str], k: int) -> bool:
    return set().union(*results[:k]) >= evidence if results else False


def rates(asked: list[Asked], side: str) -> dict[str, float]:
    def share(test: list[bool]) -> float:
        return round(100 * sum(test) / max(len(test), 1), 1)

    runs = [getattr(a, side) for a in asked]
    return {
        "any@1": share([any_at(r, 1) for r in runs]),
        "any@5": share([any_at(r, 5) for r in runs]),
        "any@10": share([any_at(r, 10) for r in runs]),
        "all@5": share([all_at(r, a.evidence, 5) for r, a in zip(runs, asked, strict=True)]),
    }


def figures(asked: list[Asked], latencies: list[float], unaskable: int) -> dict[str, object]:
    categories = sorted({a.category for a in asked})
    ordered = sorted(latencies)
    return {
        "questions": len(asked),
        "unaskable": unaskable,
        "recall": rates(asked, "recall"),
        "plain_bm25": rates(asked, "bm25"),
        "per_category": {
            c: {
                "questions": sum(a.category == c for a in asked),
                "recall": rates([a for a in asked if a.category == c], "recall"),
                "plain_bm25": rates([a for a in asked if a.category == c], "bm25"),
            }
            for c in categories
        },
        "latency_ms": {
            "p50": round(statistics.median(ordered), 2),
            "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--locomo", help="locomo10.json or locomo10.zip (default: cache or download)")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    args = parser.parse_args()
    try:
        conversations = locomo.load(args.locomo)
    except (locomo.LocomoMissing, OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
        sys.exit(f"locomo_recall_bench: {error}")
    with scratch_database(args.database, "summarizer_locomo") as db:
        asked, latencies, unaskable = ask_all(db, conversations)
    print(json.dumps({"database": args.database, **figures(asked, latencies, unaskable)}, indent=2))


if __name__ == "__main__":
    main()
