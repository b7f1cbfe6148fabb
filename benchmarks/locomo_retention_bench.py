"""Retention on LoCoMo: what share of the gold facts whose turn left the window the summary still holds.

    uv run python benchmarks/locomo_retention_bench.py [--locomo PATH] [--conversations N] [--judge]

LoCoMo (public, CC BY-NC 4.0, not bundled: see `benchmarks/locomo.py` for where it is read from) holds ten
two-person conversations spread over months. Each one is replayed through the real code paths, in
process, on an embedded SQLite database in a temporary directory, as `benchmarks/retention_bench.py`
does: the host API records each session's turns (speaker_a as the user, speaker_b as the assistant, so an
exchange is a turn of speaker_a and the replies of speaker_b after it), the sliding window of
`WINDOW_TOKENS` evicts, the update service drains the queue with the embedded default's summary engine
under its 10k-token cap, and the daily aging pass runs at each day's end. Times are shifted so that the
replay ends now; LoCoMo dates sessions, not turns, so a session's turns are a minute apart from its
start. At the end the summary is aged as of now.

Gold facts: the newer release's observations when it has them (each tied to the turns that state it),
else the turns that questions cite as evidence. A fact counts when its turn was folded (its exchange left
the window and the summary accounts for it) and is younger than 14 days (older ones age out by design).
It is held when the summary item that cites the turn's exchange holds at least half of the turn's content
words (words of three letters or more that are not common function words, compared case-folded); the
tier is that item's tier ("forgotten" when no item cites the exchange). With `--judge` and a provider
configured (ANTHROPIC_API_KEY), a model also answers, for each counted fact, whether the item states what
the turn says; that figure is printed beside the word check.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import structlog
from sqlalchemy import select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import locomo, longmemeval
from benchmarks.retention_bench import Clock, Replay
from summarizer.composition import build_database
from summarizer.composition.llm import build_engine
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.engine.model import Summary
from summarizer.settings import LLMChoice, Settings
from summarizer.storage.sql.migrations import upgrade
from summarizer.storage.sql.readers.reading import load_summary
from summarizer.storage.sql.statements.schema import agents, messages

KEEP_DAYS = 14
WINDOW_TOKENS = 1_500
"""The host's window: about two of LoCoMo's sessions, so all but the last ones leave it."""
TURN_GAP = timedelta(minutes=1)
TARGET = 0.90
MIN_WORD = 3
_STOPWORD_TEXT = """the and for are but not you your yours all any can had her was our out has him his how its may
now see way who did get got let put say she too use that with have this will from they them then than
there their what when where which while would could should about after again also been before being
both each just like more most much only other over same some such very into were here those these
because does doing down during few further itself myself ourselves through under until off once own why
yes yeah wow really thanks thank hey gonna lot things thing something anything everything stuff kind sure
know think going well good great cool awesome glad definitely totally always ever even still"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""Function words and chat filler: they say nothing a summary has to keep."""
TIER_ORDER = ("session", "yesterday", "week", "forgotten")


def content_words(text: str) -> set[str]:
    """The words a fact is checked by: three letters or more, not a common function word, case-folded."""
    return {w for w in re.findall(r"[a-z0-9]+", text.casefold()) if len(w) >= MIN_WORD and w not in STOPWORDS}


def holds(item_text: str, turn_text: str, answer: str | None = None) -> bool:
    """Whether an item holds at least half of a turn's content words; for a turn that states a question's
    answer word for word (LongMemEval), whether the item holds that answer."""
    if answer is not None:
        return " ".join(answer.casefold().split()) in " ".join(item_text.casefold().split())
    wanted = content_words(turn_text)
    if not wanted:
        return True
    return 2 * len(wanted & content_words(item_text)) >= len(wanted)


@dataclass(slots=True)
class Fact:
    sample_id: str
    dia_id: str
    text: str
    tier: str
    held: bool
    item_text: str


@dataclass(slots=True)
class Totals:
    facts: list[Fact] = field(default_factory=list)
    in_window: int = 0
    too_old: int = 0
    tokens: list[int] = field(default_factory=list)
    items: list[int] = field(default_factory=list)
    updates: int = 0
    seconds: float = 0.0


def stated_answers(conv: locomo.Conversation) -> dict[str, str]:
    """The evidence turns that state their question's answer word for word, with that answer."""
    out: dict[str, str] = {}
    for question in conv.questions:
        answer = " ".join(question.answer.split())
        for dia_id in question.evidence:
            turn = conv.turn(dia_id)
            if answer and turn is not None and answer.casefold() in " ".join(turn.text.split()).casefold():
                out.setdefault(dia_id, answer)
    return out


def gold_turns(conv: locomo.Conversation) -> list[str]:
    """The dia_ids of the gold facts: observations' evidence, else the questions' evidence."""
    known = {t.dia_id for t in conv.turns}
    if conv.observations:
        cited = [e for o in conv.observations for e in o.evidence]
    else:
        cited = [e for q in conv.questions for e in q.evidence]
    seen: dict[str, None] = {}
    for dia_id in cited:
        if dia_id in known:
            seen.setdefault(dia_id, None)
    return list(seen)


def records(conv: locomo.Conversation, shift: timedelta) -> list[list[tuple[str, NewMessage]]]:
    """The conversation's sessions as records (speaker_a the user, speaker_b the assistant)."""
    sessions: dict[int, list[tuple[str, NewMessage]]] = {}
    for turn in conv.turns:
        session = sessions.setdefault(turn.session, [])
        kind = Kind.USER if turn.speaker == conv.speaker_a else Kind.ASSISTANT
        at = turn.at + shift + TURN_GAP * len(session)
        session.append((conv.sample_id, NewMessage(kind, turn.text, created_at=at, host_id=turn.dia_id)))
    return [sessions[k] for k in sorted(sessions)]


def replay_end(conv: locomo.Conversation) -> datetime:
    last = max(t.at for t in conv.turns)
    count = sum(1 for t in conv.turns if t.at == last)
    return last + TURN_GAP * count


def replay(
    conv: locomo.Conversation, now: datetime, totals: Totals, cap: int, *, by_answer: bool = False
) -> None:
    started = time.perf_counter()
    agent = conv.sample_id
    with tempfile.TemporaryDirectory(prefix="locomo-retention-") as tmp:
        settings = Settings(
            data_dir=Path(tmp),
            database_url="",
            broker_url="",
            llm=LLMChoice.OFFLINE,
            window_tokens=WINDOW_TOKENS,
            summary_max_tokens=cap,
        )
        db = build_database(settings)
        upgrade(db)
        wait = timedelta(seconds=settings.batch_max_wait) + timedelta(minutes=30)
        shift = now - wait - replay_end(conv)
        sessions = records(conv, shift)
        first = sessions[0][0][1].created_at
        assert first is not None
        run = Replay.build(settings, db, Clock(first), build_engine(settings))
        totals.updates += run.feed(sessions, agent)
        run.clock.now = now
        totals.updates += run.service.drain(agent).runs
        run.service.age(now)
        with db.read() as conn:
            summary = load_summary(conn, agent)
            window_start = conn.execute(
                select(agents.c.window_start).where(agents.c.id == agent)
            ).scalar_one()
            exchange_of = {
                str(host_id): exchange_id
                for host_id, exchange_id in conn.execute(
                    select(messages.c.host_id, messages.c.exchange_id).where(messages.c.agent_id == agent)
                )
            }
        db.engine.dispose()
    answers = stated_answers(conv) if by_answer else None
    count(conv, now, shift, summary, window_start, exchange_of, totals, answers)
    totals.seconds += time.perf_counter() - started


def count(
    conv: locomo.Conversation,
    now: datetime,
    shift: timedelta,
    summary: Summary | None,
    window_start: int,
    exchange_of: dict[str, int | None],
    totals: Totals,
    answers: dict[str, str] | None = None,
) -> None:
    items = summary.items if summary is not None else ()
    covered = summary.covered_through_exchange_id if summary is not None else None
    if summary is not None:
        totals.tokens.append(summary.token_count)
        totals.items.append(len(items))
    citing = {x: item for item in items for x in item.exchange_ids}
    for dia_id in gold_turns(conv) if answers is None else list(answers):
        turn = conv.turn(dia_id)
        exchange = exchange_of.get(dia_id)
        if turn is None or exchange is None:
            continue
        if exchange >= window_start or covered is None or exchange > covered:
            totals.in_window += 1
            continue
        if now - (turn.at + shift) >= timedelta(days=KEEP_DAYS):
            totals.too_old += 1
            continue
        item = citing.get(exchange)
        tier = item.tier.value if item is not None else "forgotten"
        text = item.text if item is not None else ""
        answer = answers.get(dia_id) if answers is not None else None
        held = holds(text, turn.text, answer)
        totals.facts.append(Fact(conv.sample_id, dia_id, turn.text, tier, held, text))


def report(totals: Totals, show_missing: int, cap: int) -> None:
    facts = totals.facts
    held = sum(f.held for f in facts)
    share = held / len(facts) if facts else 0.0
    verdict = "meets" if share >= TARGET else "BELOW"
    print(
        f"offline: {held}/{len(facts)} gold facts folded in the last {KEEP_DAYS} days held = {share:.1%} "
        f"({verdict} the {TARGET:.0%} target); {totals.in_window} still in the window, "
        f"{totals.too_old} older than {KEEP_DAYS} days"
    )
    by_tier = Counter(f.tier for f in facts)
    held_tier = Counter(f.tier for f in facts if f.held)
    for tier in TIER_ORDER:
        if by_tier[tier]:
            print(f"  {tier:>9}: {held_tier[tier]}/{by_tier[tier]} = {held_tier[tier] / by_tier[tier]:.1%}")
    if totals.tokens:
        print(
            f"  summary tokens (cap {cap}): min {min(totals.tokens)}, median "
            f"{statistics.median(totals.tokens):.0f}, max {max(totals.tokens)}; items median "
            f"{statistics.median(totals.items):.0f}; {totals.updates} updates in {totals.seconds:.1f}s"
        )
    for fact in [f for f in facts if not f.held][:show_missing]:
        print(f"  missing {fact.sample_id} {fact.dia_id} ({fact.tier}): {fact.text[:100]!r}")
        print(f"    item: {fact.item_text[:160]!r}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--locomo", default=None, help="locomo10.json or locomo10.zip (default: the cache)")
    parser.add_argument(
        "--longmemeval",
        default=None,
        metavar="PATH",
        help="replay LongMemEval instead (a file path, or 'default' for $SUMMARIZER_LONGMEMEVAL / the cache): "
        "a fact is an evidence turn that states its question's answer word for word, held when its item "
        "holds that answer",
    )
    parser.add_argument("--conversations", type=int, default=None, help="replay only the first N")
    parser.add_argument("--missing", type=int, default=0, help="print up to N facts not held")
    parser.add_argument(
        "--cap", type=int, default=10_000, help="the summary's cap in tokens (default 10000, the default cap)"
    )
    parser.add_argument("--judge", action="store_true", help="also ask a model (needs ANTHROPIC_API_KEY)")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    try:
        if args.longmemeval:
            explicit = None if args.longmemeval == "default" else args.longmemeval
            conversations = longmemeval.load(explicit, limit=args.conversations)
        else:
            conversations = locomo.load(args.locomo)
    except (locomo.LocomoMissing, longmemeval.LongMemEvalMissing) as error:
        raise SystemExit(f"locomo_retention_bench: {error}") from None
    now = datetime.now(UTC)
    totals = Totals()
    for conv in conversations[: args.conversations]:
        replay(conv, now, totals, args.cap, by_answer=bool(args.longmemeval))
    report(totals, args.missing, args.cap)
    if args.judge:
        judge(totals)


def judge(totals: Totals) -> None:
    if not os.environ.get("ANTHROPIC_API_KEY"):
        print("judge: skipped (no ANTHROPIC_API_KEY)")
        return
    from benchmarks.locomo_judge import judged_share

    held, asked = judged_share([(f.text, f.item_text) for f in totals.facts])
    print(f"judge: {held}/{asked} gold facts stated by their item = {held / asked if asked else 0:.1%}")


if __name__ == "__main__":
    main()
