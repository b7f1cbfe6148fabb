"""Recall on the embedded SQLite database holding many agents: what one agent's question costs.

    uv run python benchmarks/recall_sqlite_bench.py [--agents 200] [--per-agent 2000] [--queries 100]

`summarizer watch` keeps one agent per session by default, so a long-used embedded database holds
hundreds of agents. This fills a temporary SQLite database through the store's own recording path
(`--agents` agents of `--per-agent` messages, 24 words each from the skewed vocabulary of
`recall_bench.py latency`, a 2,000-token window) and times `Recall.search` for one random agent at a time
with rare, common and mixed questions: p50 and p95 in ms, and the database's size per message.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.recall_bench import VOCABULARY, WORDS_PER_MESSAGE, _questions, _timed
from summarizer.composition import build_database
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.service.recall import Recall
from summarizer.settings import LLMChoice, Settings
from summarizer.storage.sql.migrations import upgrade
from summarizer.storage.sql.readers.recall import SqlRecallStore
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig

CALL = 500
"""Messages per recording call while filling."""


def measure(agents: int, per_agent: int, queries: int) -> dict[str, object]:
    rng = random.Random(11)
    words = [f"w{int((rng.random() ** 4) * VOCABULARY)}" for _ in range(20_000)]
    base = datetime(2026, 1, 1, tzinfo=UTC)
    with tempfile.TemporaryDirectory(prefix="recall-sqlite-") as tmp:
        settings = Settings(data_dir=Path(tmp), database_url="", broker_url="", llm=LLMChoice.OFFLINE)
        db = build_database(settings)
        upgrade(db)
        try:
            store = ConversationStore(db, StoreConfig(window_tokens=2000, batch_size=10))
            started = time.perf_counter()
            for a in range(agents):
                for first in range(0, per_agent, CALL):
                    store.record_many(
                        [
                            (
                                f"agent-{a}",
                                NewMessage(
                                    Kind.USER if n % 2 == 0 else Kind.ASSISTANT,
                                    " ".join(rng.choice(words) for _ in range(WORDS_PER_MESSAGE)),
                                    tokens=30,
                                    created_at=base + timedelta(seconds=n),
                                ),
                            )
                            for n in range(first, min(per_agent, first + CALL))
                        ]
                    )
            fill = time.perf_counter() - started
            recall = Recall(SqlRecallStore(db))

            def ask(kind: str) -> object:
                return recall.search(f"agent-{rng.randrange(agents)}", _questions(rng, kind))

            figures = {kind: _timed(partial(ask, kind), queries) for kind in ("rare", "common", "mixed")}
            size = sum(p.stat().st_size for p in Path(tmp).glob("*.db*"))
        finally:
            db.dispose()
    return {
        "agents": agents,
        "messages": agents * per_agent,
        "fill_seconds": round(fill, 1),
        "database_bytes_per_message": round(size / (agents * per_agent)),
        "p50_p95_ms": figures,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--agents", type=int, default=200)
    parser.add_argument("--per-agent", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    print(json.dumps(measure(args.agents, args.per_agent, args.queries), indent=2))


if __name__ == "__main__":
    main()
