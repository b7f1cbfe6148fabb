"""The offline summarizer spends the room it has: while the summary is under its cap an item keeps what
the turn said, it gives up the least informative sentences only when the room requires it, and merges
keep each source's facts rather than a count of exchanges."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from summarizer.domain.kinds import Kind
from summarizer.engine import UpdatePath
from summarizer.engine.model import SummaryItem, Tier
from summarizer.engine.ports import LLMRequest, UpdateContext
from summarizer.engine.validation import GateContext, validate_answer
from summarizer.llm.offline import OFFLINE_PREFIX, OfflineLLM
from summarizer.llm.offline.answer import MIN_ITEM_CHARS, item_room, summarize_exchange
from summarizer.llm.offline.informative import fit, score
from tests.unit.engine.helpers import NOW, exchange, item, message

MAX_CHARS = 600

USER = (
    "Thanks, Melanie! I'm stoked to start this new chapter. It's been a dream to adopt and give a safe, "
    "loving home to kids who need it. What about you?"
)
ASSISTANT = (
    "Wow, Caroline! That's amazing. I went camping with my family at Lake Tahoe last weekend, and we saw "
    "3 bears near the trail. The kids loved it."
)


def context(
    *batch: object,
    current_tokens: int = 0,
    path: UpdatePath = UpdatePath.APPEND,
    shown: tuple[SummaryItem, ...] = (),
    max_tokens: int = 10_000,
) -> UpdateContext:
    return UpdateContext(
        path=path,
        batch=batch,  # type: ignore[arg-type]
        visible_items=shown,
        max_item_chars=MAX_CHARS,
        max_tokens=max_tokens,
        current_tokens=current_tokens,
        target_tokens=int(0.8 * max_tokens),
        floor_tokens=max_tokens // 2,
    )


def test_under_the_cap_an_item_keeps_every_sentence_of_both_sides() -> None:
    add = summarize_exchange(exchange(1, user=USER, assistant=ASSISTANT), MAX_CHARS)
    body = add.text.removeprefix(OFFLINE_PREFIX)
    for sentence in (
        "I'm stoked to start this new chapter.",
        "It's been a dream to adopt and give a safe, loving home to kids who need it.",
        "I went camping with my family at Lake Tahoe last weekend, and we saw 3 bears near the trail.",
        "The kids loved it.",
    ):
        assert sentence in body, body
    assert body.startswith("Asked: Thanks, Melanie!")
    assert "?." not in body, "a question keeps its own mark"


def test_a_tight_room_keeps_the_informative_sentences_in_their_order() -> None:
    add = summarize_exchange(exchange(1, user=USER, assistant=ASSISTANT), MAX_CHARS, room=200)
    assert len(add.text) <= 200
    body = add.text.removeprefix(OFFLINE_PREFIX)
    assert "Lake Tahoe last weekend" in body
    assert "3 bears" in body
    assert "Wow, Caroline!" not in body
    assert "What about you?" not in body
    assert body.index("stoked") < body.index("Lake Tahoe")


def test_sentences_that_say_something_outscore_filler() -> None:
    assert score("We moved to Denver on 3 May and signed the lease with Acme.") > score("That's so cool!")
    assert score("Decision: pin PyJWT to 2.8.3 in pyproject.toml.") > score("Sounds good to me, thanks.")
    assert score("The deploy failed with a timeout yesterday.") > score("What do you think about it?")


def test_fit_gives_up_the_least_informative_sentence_first_and_keeps_order() -> None:
    groups = [["Hi there, how are you?", "I start at Google in Zurich on 4 June."], ["Nice!", "Wow."]]
    kept = fit(groups, room=45)
    assert kept == [["I start at Google in Zurich on 4 June."], []]
    assert fit(groups, room=1_000) == groups


def test_the_room_shrinks_only_as_the_summary_nears_where_compression_starts() -> None:
    batch = (exchange(1), exchange(2), exchange(3))
    assert item_room(context(*batch, current_tokens=1_000)) == MAX_CHARS
    near = item_room(context(*batch, current_tokens=7_850))
    assert MIN_ITEM_CHARS <= near < MAX_CHARS
    assert item_room(context(*batch, current_tokens=9_500)) == MIN_ITEM_CHARS
    long_user = " ".join(f"On day {n} we shipped release {n}.0 to the Berlin office." for n in range(30))
    request = LLMRequest(
        "s", "u", "t", "d", {}, 1000, context(exchange(1, user=long_user), current_tokens=7_950)
    )
    (add,) = OfflineLLM().complete(request).tool_input["add"]  # type: ignore[index]
    assert len(add["text"]) <= MIN_ITEM_CHARS
    assert "On day 0 we shipped release 0.0 to the Berlin office." in add["text"]


def test_a_sentence_that_reads_like_a_refusal_does_not_cost_the_rest_of_the_turn() -> None:
    user = "My sister Ana moved to Lisbon in March. As an AI, what do you make of that?"
    x = exchange(1, user=user, assistant="Lisbon in spring is lovely.")
    answer = OfflineLLM().complete(LLMRequest("s", "u", "t", "d", {}, 1000, context(x)))
    (add,) = validate_answer(answer.tool_input, GateContext([1], {}, MAX_CHARS)).add
    assert "My sister Ana moved to Lisbon in March." in add.text
    assert "As an AI" not in add.text


def test_the_same_exchange_gives_the_same_item() -> None:
    x = exchange(1, user=USER * 5, assistant=ASSISTANT * 5)
    assert summarize_exchange(x, MAX_CHARS, 300) == summarize_exchange(x, MAX_CHARS, 300)


def test_merges_keep_each_sources_facts_not_a_count_of_exchanges() -> None:
    shown = tuple(
        item(
            (n,),
            text=(
                f"{OFFLINE_PREFIX}Asked: Thanks so much! On day {n} Priya booked flight LX{300 + n} to Zurich. "
                f"Sounds fun. Done: Great, have a good trip!"
            ),
            ended_ago=timedelta(hours=20, minutes=-n),
        )
        for n in range(1, 41)
    )
    ctx = context(exchange(99), current_tokens=1_400, path=UpdatePath.MERGE, shown=shown, max_tokens=1_500)
    answer = OfflineLLM().complete(LLMRequest("s", "u", "t", "d", {}, 1000, ctx))
    ops = validate_answer(answer.tool_input, GateContext([99], {i.id: i for i in shown}, MAX_CHARS))
    assert ops.merge
    merged = " ".join(m.text for m in ops.merge)
    assert "exchanges" not in merged
    held = sum(f"LX{300 + n}" in merged for m in ops.merge for n in range(1, 41) if f"x{n}" in m.item_ids)
    folded = sum(len(m.item_ids) for m in ops.merge)
    assert held >= folded * 0.8, (held, folded, merged)
    assert "Sounds fun" not in merged


@pytest.mark.timeout(60)
@pytest.mark.parametrize("char", ["a", ".", " ", "1", "é", "\n", "a."])
def test_a_megabyte_of_one_character_is_summarized_fast(char: str) -> None:
    x = exchange(1, user=char * 1_000_000, assistant=(char + " ") * 500_000)
    started = time.perf_counter()
    add = summarize_exchange(x, MAX_CHARS)
    assert time.perf_counter() - started < 1.0
    assert add.text.startswith(OFFLINE_PREFIX)
    assert len(add.text) <= MAX_CHARS


def long_item(n: int, tier: Tier, *, decision: str = "") -> SummaryItem:
    said = (
        f"Thanks! On day {n} Priya booked flight LX{300 + n} to Zurich for the Basel fair on 4 June. "
        "It was a long call with the travel desk, honestly. "
        "We also talked about the weather, which was grey and wet all week long. "
        "Anyway, that is all for now."
    )
    decided = f" Decided: {decision}." if decision else ""
    text = f"{OFFLINE_PREFIX}Asked: {said} Done: Noted, have a good trip and say hi to Priya.{decided}"
    return item(
        (n,), tier=tier, text=text, ended_ago=timedelta(days=3 if tier is Tier.YESTERDAY else 0, hours=2 + n)
    )


def test_near_its_target_the_summary_shortens_the_oldest_items_to_their_facts_before_merging() -> None:
    shown = (
        *(
            long_item(n, Tier.YESTERDAY, decision="We will fly economy from now on" if n == 1 else "")
            for n in range(1, 5)
        ),
        *(long_item(n, Tier.SESSION) for n in range(5, 9)),
    )
    ctx = context(exchange(99), current_tokens=1_560, path=UpdatePath.FULL, shown=shown, max_tokens=2_000)
    answer = OfflineLLM().complete(LLMRequest("s", "u", "t", "d", {}, 1000, ctx))
    ops = validate_answer(answer.tool_input, GateContext([99], {i.id: i for i in shown}, MAX_CHARS))
    assert ops.shorten
    assert not ops.merge, "shortening saved enough: no item lost its own line"
    by_id = {i.id: i for i in shown}
    tiers = [by_id[s.item_id].tier for s in ops.shorten]
    assert tiers[0] is Tier.YESTERDAY, "the oldest tier goes first"
    assert tiers == sorted(tiers, key=lambda t: -t.rank)
    for op in ops.shorten:
        n = int(op.item_id.removeprefix("x"))
        assert len(op.text) < len(by_id[op.item_id].text)
        assert f"LX{300 + n} to Zurich" in op.text, op.text
        assert "weather" not in op.text
    first = next((op for op in ops.shorten if op.item_id == "x1"), None)
    assert first is not None
    assert "Decided: We will fly economy from now on." in first.text


def test_in_a_tight_room_the_agents_final_message_leads_its_side() -> None:
    at = NOW - timedelta(minutes=40)
    chatter = " ".join(f"I'll now read file number {n} of the module to see how it fits." for n in range(12))
    x = exchange(
        1,
        user="Split readiness and liveness endpoints.",
        extra=(message(2, Kind.ASSISTANT, chatter, at, 1),),
        assistant="Added `readiness` to src/authsvc/app.py; 23 tests pass.",
    )
    add = summarize_exchange(x, MAX_CHARS, room=200)
    assert "Asked: Split readiness and liveness endpoints." in add.text
    assert "Added `readiness` to src/authsvc/app.py" in add.text, add.text


def test_at_the_least_room_both_lead_sentences_stay_before_any_artifact() -> None:
    at = NOW - timedelta(minutes=40)
    calls = tuple(
        message(
            2 + n, Kind.TOOL_CALL, "", at, 1, tool_call_id=f"t{n}", name="file_read", input={"path": path}
        )
        for n, path in enumerate(
            (".github/workflows/ci.yml", "scripts/check_migrations.sh", "docs/ci/jobs.md")
        )
    )
    x = exchange(
        1,
        user="Anything about the CI pipeline work you're not happy with?",
        assistant="Required checks on main keep the rules enforced by the tool rather than by memory.",
        extra=calls,
    )
    add = summarize_exchange(x, MAX_CHARS, room=MIN_ITEM_CHARS)
    assert "Asked: Anything about the CI pipeline work you're not happy with?" in add.text, add.text
    assert (
        "Done: Required checks on main keep the rules enforced by the tool rather than by memory." in add.text
    )


FRAMED_ANSWER = (
    "Here's how I'd think about it.\n\n"
    "1. Limits are configuration, not constants, so security can tune them without a release.\n"
    "2. We fail open on Redis errors for /healthz but fail closed for /token: availability of login is not "
    "worth unlimited guessing.\n\n"
    "Happy to dig into any of these before we write code."
)


def test_a_framing_line_never_leads_and_the_decision_with_its_reason_is_kept() -> None:
    add = summarize_exchange(
        exchange(1, user="Fail open or fail closed when Redis is down?", assistant=FRAMED_ANSWER),
        MAX_CHARS,
        room=260,
    )
    assert "fail closed for /token" in add.text
    assert "Here's how I'd think about it" not in add.text
    assert "Happy to dig" not in add.text


@pytest.mark.parametrize(
    ("fact", "frame"),
    [
        ("I moved to Lisbon in March because my partner works there.", "Good question."),
        (
            "My daughter is allergic to peanuts, so we keep the kitchen nut-free.",
            "Let me know if that helps.",
        ),
        ("We chose PostgreSQL over MongoDB since the data is relational.", "There are a few options."),
    ],
)
def test_statements_of_fact_outscore_framing_and_hedges(fact: str, frame: str) -> None:
    assert score(fact) > score(frame)
    assert score(frame) < 0


LISTED_ANSWER = (
    "Here's how I'd think about it.\n\n"
    "1. Responses carry Retry-After so well-behaved clients back off instead of hammering.\n"
    "2. A token bucket in Redis, updated by a Lua script, keeps the check-and-decrement atomic.\n"
    "3. We fail open on Redis errors for /healthz but fail closed for /token: availability of login is not "
    "worth unlimited guessing.\n\n"
    "It adds well under a millisecond against a budget of 200 ms for /token."
)


def test_a_merge_keeps_the_list_item_that_answers_the_question_not_the_first_one() -> None:
    from summarizer.llm.offline.clustering import condensed
    from summarizer.llm.offline.facts import facts_of_text

    whole = summarize_exchange(
        exchange(1, user="Fail open or fail closed when Redis is down?", assistant=LISTED_ANSWER), 2_000
    )
    assert "Retry-After" in whole.text  # room enough: the item keeps the whole turn
    merged = condensed(facts_of_text(whole.text))
    line = " ".join(merged.work)
    assert "fail closed for /token" in line, line
    assert "Retry-After" not in line


def test_shortening_keeps_the_list_item_that_answers_the_question() -> None:
    from summarizer.llm.offline.shortening import shortened_text

    whole = summarize_exchange(
        exchange(1, user="Fail open or fail closed when Redis is down?", assistant=LISTED_ANSWER), 2_000
    )
    short = shortened_text(whole.text, 2_000)
    assert short is not None
    assert "fail closed for /token" in short, short


@pytest.mark.parametrize(
    "frame",
    [
        "Let me lay out the options and where I land.",
        "Right, let me put it in context.",
        "Okay, let's walk through it:",
        "There are a couple of angles here.",
        "There is more than one way to look at it.",
    ],
)
def test_framing_in_other_words_is_still_framing(frame: str) -> None:
    from summarizer.llm.offline.informative import framing

    assert framing(frame)
    assert score(frame) < score("We fail open on Redis errors for /healthz but fail closed for /token.")


def test_a_sentence_that_starts_like_framing_but_states_a_plan_is_not_framing() -> None:
    from summarizer.llm.offline.informative import framing

    assert not framing(
        "Let me put the key in the vault tomorrow because it expires on Friday and we need it."
    )
