"""A real model server in the loop: how its answers fare and what folding costs.

    uv run python benchmarks/real_model_bench.py --base-url http://127.0.0.1:8080/v1 --model smollm2

Replays the bundled coding-agent conversation (its first `--exchanges` exchanges, moved to today) into an
embedded SQLite database in a temporary directory, with a small window so most of it is evicted, and
drains the update queue in process through the official OpenAI SDK against any OpenAI-compatible server
(llama.cpp's server, vLLM, Ollama, a hosted API). Every update asks the model first (the per-agent model
breaker is off here, so the model is measured, not the breaker); what it cannot fold after the poison
split the offline summarizer folds. Prints the share of answers accepted, rejected by the gate (by rule)
and unusable (by cause), the share of exchanges folded by the model and by the fallback, the latency per
update and the tokens the server reported.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import select

from summarizer.cli.commands_demo import rebased
from summarizer.composition import (
    build_database,
    build_sql_store,
    build_summarizer,
    build_token_counter,
    build_worker_config,
)
from summarizer.composition.llm import build_engine_config, build_llm
from summarizer.domain.messages import EvictedExchange
from summarizer.engine.engine import SummaryEngine, UpdateOutcome
from summarizer.engine.errors import AnswerRejected
from summarizer.engine.model import Summary
from summarizer.engine.ports import LLM, AnswerUnusable, LLMAnswer, LLMRequest
from summarizer.ingest.reader import read_records
from summarizer.llm.offline import OfflineLLM
from summarizer.samples import SAMPLE_AGENT, sample_path
from summarizer.service.update import UpdateService
from summarizer.settings import load_settings
from summarizer.storage.sql.migrations import ensure_schema
from summarizer.storage.sql.statements.schema import summary_runs

MODEL_PATHS_EXCLUDED = {"offline-fallback", "offline-routed", "unsummarizable"}


class CountingLLM:
    """The configured model, counting its answers and the causes of the unusable ones."""

    def __init__(self, inner: LLM) -> None:
        self.inner = inner
        self.answered = 0
        self.unusable: Counter[str] = Counter()
        self.latencies: list[float] = []

    def complete(self, request: LLMRequest) -> LLMAnswer:
        started = datetime.now(UTC)
        try:
            answer = self.inner.complete(request)
        except AnswerUnusable as exc:
            self.unusable[exc.cause] += 1
            raise
        finally:
            self.latencies.append((datetime.now(UTC) - started).total_seconds())
        self.answered += 1
        return answer


class CountingEngine(SummaryEngine):
    """The summary engine, counting the answers its gate rejects, by rule."""

    rejected: Counter[str]

    def update(
        self,
        summary: Summary | None,
        agent_id: str,
        batch: Sequence[EvictedExchange],
        now: datetime,
        instructions: str | None = None,
    ) -> UpdateOutcome:
        try:
            return super().update(summary, agent_id, batch, now, instructions)
        except AnswerRejected as exc:
            self.rejected[rule_of(exc.reason)] += 1
            raise


def rule_of(reason: str) -> str:
    """The gate's rule in a rejection reason, without the operation's index and the quoted text."""
    text = re.sub(r"^[a-z_]+\[\d+\](\.[a-z_]+)?:\s*", "", reason)
    return re.split(r"[:\[(']", text, maxsplit=1)[0].strip()[:60] or reason[:60]


def share(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.0f}%)" if whole else f"{part}"


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(
            data_dir=Path(tmp),
            llm="openai",
            openai_base_url=args.base_url,
            openai_model=args.model,
            openai_api_key=args.api_key,
            window_tokens=args.window_tokens,
            batch_size=3,
            max_batch_exchanges=args.batch,
            clip_message_chars=args.clip_chars,
            llm_timeout=args.timeout,
            llm_max_output_tokens=args.max_output_tokens,
            llm_max_retries=0,
            batch_max_wait=0,
            retry_base_seconds=0.01,
            retry_max_seconds=0.01,
        )
        db = build_database(settings)
        ensure_schema(db, auto_upgrade=True)
        llm = CountingLLM(build_llm(settings))
        engine = CountingEngine(llm, build_token_counter(settings), build_engine_config(settings))
        engine.rejected = Counter()
        service = UpdateService(
            build_sql_store(db),
            engine,
            build_worker_config(settings),
            fallback=engine.with_llm(OfflineLLM()),
        )
        records = list(read_records(str(sample_path()), "canonical", None, 1_000_000))
        users = [i for i, r in enumerate(records) if r.message.kind.value == "user"]
        cut = users[args.exchanges] if len(users) > args.exchanges else len(records)
        api = build_summarizer(settings, db)
        now = datetime.now(UTC) - timedelta(minutes=5)
        report = api.record_many(rebased([(r.agent_id, r.message) for r in records[:cut]], now))
        for _ in range(500):
            service.due()
            service.drain(SAMPLE_AGENT)
            if api.unsummarized(SAMPLE_AGENT) == 0:
                break
        else:
            print("the queue did not drain within 500 rounds", file=sys.stderr)
            return 1
        with db.read() as conn:
            runs = conn.execute(
                select(
                    summary_runs.c.outcome,
                    summary_runs.c.path,
                    summary_runs.c.exchange_count,
                    summary_runs.c.duration_ms,
                    summary_runs.c.llm_input_tokens,
                    summary_runs.c.llm_output_tokens,
                )
            ).all()
        db.dispose()

    ok = [r for r in runs if r.outcome == "ok"]
    by_model = sum(r.exchange_count for r in ok if r.path not in MODEL_PATHS_EXCLUDED)
    by_fallback = sum(r.exchange_count for r in ok if r.path == "offline-fallback")
    given_up = sum(r.exchange_count for r in ok if r.path == "unsummarizable")
    rejected = sum(engine.rejected.values())
    unusable = sum(llm.unusable.values())
    answers = llm.answered + unusable
    accepted = llm.answered - rejected
    folded = by_model + by_fallback + given_up
    print(f"model {args.model} at {args.base_url}")
    print(
        f"exchanges evicted: {report.evicted_exchanges}; updates: {len(ok)} (+{len(runs) - len(ok)} failed)"
    )
    print(f"answers: {answers}")
    print(f"  accepted:   {share(accepted, answers)}")
    print(f"  rejected:   {share(rejected, answers)}")
    for rule, n in engine.rejected.most_common():
        print(f"    {n:4d}  {rule}")
    print(f"  unusable:   {share(unusable, answers)}")
    for cause, n in llm.unusable.most_common():
        print(f"    {n:4d}  {cause}")
    print(f"exchanges folded by the model:    {share(by_model, folded)}")
    print(f"exchanges folded by the fallback: {share(by_fallback, folded)}")
    print(f"exchanges given up on:            {share(given_up, folded)}")
    if ok:
        durations = sorted(r.duration_ms for r in ok)
        print(
            f"latency per update: median {statistics.median(durations) / 1000:.1f} s,"
            f" max {durations[-1] / 1000:.1f} s"
        )
    if llm.latencies:
        print(f"latency per model call: median {statistics.median(llm.latencies):.1f} s")
    tokens_in = sum(r.llm_input_tokens for r in runs)
    tokens_out = sum(r.llm_output_tokens for r in runs)
    print(f"tokens reported by the server: {tokens_in:,} in / {tokens_out:,} out")
    if folded:
        print(f"input tokens per folded exchange: {tokens_in / folded:,.0f}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--base-url", required=True, help="the server's OpenAI base URL, e.g. http://HOST:PORT/v1"
    )
    parser.add_argument("--model", required=True, help="the model name the server knows")
    parser.add_argument("--api-key", default="", help="the server's API key, if it wants one")
    parser.add_argument("--exchanges", type=int, default=12, help="exchanges of the sample to replay")
    parser.add_argument("--window-tokens", type=int, default=900)
    parser.add_argument("--batch", type=int, default=3, help="most exchanges one update folds")
    parser.add_argument("--clip-chars", type=int, default=300, help="characters of a message shown")
    parser.add_argument("--max-output-tokens", type=int, default=400)
    parser.add_argument("--timeout", type=float, default=300.0)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
