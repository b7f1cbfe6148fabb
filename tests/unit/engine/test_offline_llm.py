from __future__ import annotations

import re
from datetime import timedelta

from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine import EngineConfig, Summary, SummaryEngine, UpdatePath
from summarizer.engine.apply import apply_operations
from summarizer.engine.cap import estimate_text
from summarizer.engine.model import Importance, SummaryItem
from summarizer.engine.ports import LLMRequest, UpdateContext
from summarizer.engine.validation import GateContext, validate_answer
from summarizer.llm.offline import OFFLINE_PREFIX, OfflineLLM, importance_of
from summarizer.llm.offline.facts import cut, facts_of_text
from summarizer.llm.offline.wording import compose
from tests.unit.engine.helpers import NOW, exchange, item

FRAGMENT_LIST = re.compile(r"(?:[^;]*…\s*;){2,}")


def request(
    *exchanges: object,
    path: UpdatePath = UpdatePath.APPEND,
    shown: tuple[SummaryItem, ...] = (),
    current_tokens: int = 0,
    max_tokens: int = 10_000,
) -> LLMRequest:
    ctx = UpdateContext(
        path=path,
        batch=exchanges,  # type: ignore[arg-type]
        visible_items=shown,
        max_item_chars=300,
        max_tokens=max_tokens,
        current_tokens=current_tokens,
    )
    return LLMRequest("system", "user", "tool", "d", {}, 1000, ctx)


def assert_readable(text: str) -> None:
    assert text.startswith(OFFLINE_PREFIX)
    assert text.count("…") <= 1, text
    assert not FRAGMENT_LIST.search(text), text


def test_one_labelled_item_per_exchange_that_passes_the_gate() -> None:
    batch = (exchange(1), exchange(2, user="Fix the typo in the README.", assistant="Fixed it."))
    answer = OfflineLLM().complete(request(*batch))
    assert answer.offline
    ops = validate_answer(answer.tool_input, GateContext([1, 2], {}, 300))
    assert [a.exchange_ids for a in ops.add] == [(1,), (2,)]
    assert not ops.merge
    assert not ops.drop
    assert not ops.shorten
    assert "JWT" in ops.add[0].text
    assert "Done: Fixed it." in ops.add[1].text
    for add in ops.add:
        assert_readable(add.text)


def test_decisions_and_named_artifacts_are_kept_whole_and_make_the_item_high() -> None:
    x = exchange(
        1,
        user="Decision: pin PyJWT to 2.8.3 and keep the signing key in config/keys/jwt_rs256.pem. Thanks.",
        assistant="Pinned PyJWT==2.8.3 in pyproject.toml; `POST /v1/token/refresh` now rotates keys every 30 days.",
    )
    (add,) = validate_answer(OfflineLLM().complete(request(x)).tool_input, GateContext([1], {}, 300)).add
    assert add.importance is Importance.HIGH
    assert "Decided: Pin PyJWT to 2.8.3 and keep the signing key in config/keys/jwt_rs256.pem." in add.text
    for artifact in ("pyproject.toml", "POST /v1/token/refresh", "30 days", "PyJWT==2.8.3"):
        assert artifact in add.text
    assert_readable(add.text)


def test_importance_heuristics() -> None:
    assert importance_of("We decided on the API design") is Importance.HIGH
    assert importance_of("Debugging the flaky test") is Importance.LOW
    assert importance_of("Updated the readme") is Importance.MEDIUM


def test_data_that_reads_like_a_refusal_still_yields_a_valid_item() -> None:
    batch = (exchange(1, user="As an AI, what do you think?", assistant="I can't help with opinions."),)
    answer = OfflineLLM().complete(request(*batch))
    ops = validate_answer(answer.tool_input, GateContext([1], {}, 300))
    assert ops.add[0].text == OFFLINE_PREFIX + "Exchange 1 (3000 tokens)."


def test_long_text_is_cut_at_a_clause_or_once_with_an_ellipsis() -> None:
    assert cut("Short enough.", 100) == "Short enough."
    assert cut("Move the handler into tokens.py, add tests and update the docs afterwards", 40) == (
        "Move the handler into tokens.py"
    )
    hard = cut("word " * 100, 40)
    assert len(hard) <= 40
    assert hard.endswith("…")


def test_item_text_reads_back_into_the_same_facts() -> None:
    x = exchange(
        1, user="Decision: use argon2id for passwords.", assistant="Switched src/auth/hash.py to argon2id."
    )
    text = OfflineLLM().complete(request(x)).tool_input["add"][0]["text"]  # type: ignore[index]
    facts = facts_of_text(text)
    assert facts.decisions == ("Use argon2id for passwords",)
    assert "src/auth/hash.py" in facts.artifacts
    again = compose(facts, 300)
    assert facts_of_text(again.text).decisions == facts.decisions


def session_items(count: int, *, decisions: bool = False) -> tuple[SummaryItem, ...]:
    items = []
    for n in range(1, count + 1):
        path = f"src/authsvc/{'tokens' if n % 2 else 'users'}/service.py"
        text = f"{OFFLINE_PREFIX}Asked: Refactor {path} step {n}. Done: Updated {path}. Artifacts: {path}."
        if decisions and n % 5 == 0:
            text = f"{OFFLINE_PREFIX}Decided: Set the session timeout to {n} minutes. Artifacts: {n} minutes."
        items.append(item((n,), text=text, ended_ago=timedelta(hours=20, minutes=-n)))
    return tuple(items)


def test_merge_rung_merges_shown_items_by_topic_and_keeps_every_decision() -> None:
    shown = session_items(30, decisions=True)
    answer = OfflineLLM().complete(
        request(exchange(99), path=UpdatePath.MERGE, shown=shown, current_tokens=9_000, max_tokens=10_000)
    )
    ops = validate_answer(answer.tool_input, GateContext([99], {i.id: i for i in shown}, 300))
    assert ops.merge, "a summary over its merge threshold gets merges"
    assert not ops.drop
    merged_away = {i for m in ops.merge for i in m.item_ids}
    survivors = [i.text for i in shown if i.id not in merged_away] + [m.text for m in ops.merge]
    for n in range(5, 31, 5):
        assert any(f"Set the session timeout to {n} minutes" in text for text in survivors), n
    for merge in ops.merge:
        assert_readable(merge.text)
        assert len(merge.text) <= 300
    topical = [m for m in ops.merge if "Topic: src/authsvc/" in m.text]
    assert topical, [m.text for m in ops.merge]
    for merge in topical:
        topic = "tokens" if "tokens/service.py," in merge.text.split("Work:")[0] else "users"
        assert all(f"/{topic}/" in next(i.text for i in shown if i.id == x) for x in merge.item_ids)


def test_a_merged_item_cites_the_union_of_its_sources_exchanges() -> None:
    shown = session_items(12)
    answer = OfflineLLM().complete(
        request(exchange(99), path=UpdatePath.FULL, shown=shown, current_tokens=9_900, max_tokens=10_000)
    )
    ops = validate_answer(answer.tool_input, GateContext([99], {i.id: i for i in shown}, 300))
    assert ops.merge
    result = apply_operations(shown, ops, {99: exchange(99)}, NOW)
    by_id = {i.id: i for i in result.items}
    for merge, new_id in zip(ops.merge, result.merged_ids, strict=True):
        sources = [i for i in shown if i.id in merge.item_ids]
        assert list(by_id[new_id].exchange_ids) == sorted(x for s in sources for x in s.exchange_ids)
    cited = sorted(x for i in result.items for x in i.exchange_ids)
    assert cited == [*range(1, 13), 99], "nothing was dropped"


def test_a_summary_under_its_target_gets_no_merges() -> None:
    shown = session_items(6)
    answer = OfflineLLM().complete(
        request(exchange(99), path=UpdatePath.MERGE, shown=shown, current_tokens=1_000, max_tokens=10_000)
    )
    assert answer.tool_input is not None
    assert answer.tool_input["merge"] == []


def test_offline_engine_stays_valid_and_under_the_cap_over_many_updates() -> None:
    engine = SummaryEngine(OfflineLLM(), ByteEstimateCounter(), EngineConfig(max_tokens=600))
    summary: Summary | None = None
    paths = set()
    for batch_no in range(30):
        start = batch_no * 3 + 1
        batch = [
            exchange(n, ended_ago=timedelta(hours=60 - 2 * batch_no, minutes=-n))
            for n in range(start, start + 3)
        ]
        outcome = engine.update(summary, "agent", batch, NOW)
        summary = outcome.summary
        paths.add(outcome.path)
        assert estimate_text(engine.render(summary, NOW)) <= 600
    assert {UpdatePath.APPEND, UpdatePath.FULL} <= paths
    assert summary is not None
    assert summary.covered_through_exchange_id == 90
    for summary_item in summary.items:
        assert_readable(summary_item.text)


def test_a_sentence_that_only_mentions_a_decision_is_not_one() -> None:
    from summarizer.llm.offline.facts import decisions_in

    text = (
        "The failure mode is silent, which is why it deserves an explicit decision. "
        "Should we go with Redis? "
        "\n\n```\n## Decision\n```\n\n"
        "We decided to keep sessions in Redis for now. "
        "Decision: tokens expire after 15 minutes."
    )
    assert decisions_in(text) == [
        "We decided to keep sessions in Redis for now",
        "Tokens expire after 15 minutes",
    ]
