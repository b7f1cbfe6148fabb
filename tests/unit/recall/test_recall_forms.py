"""Recall's word forms: a question word in one irregular form also finds the turns that say it in another,
counted as one word."""

from __future__ import annotations

from collections.abc import Sequence

from summarizer.domain.recall import RecallFilter, TermHits
from summarizer.domain.recall_forms import MAX_FORMS, fold_forms, other_forms
from summarizer.service.recall import Recall
from summarizer.storage.values import ProvenanceFacts, RecallDetails


def test_irregular_forms_are_searched_beside_the_question_word() -> None:
    assert other_forms(("broken", "prius")) == ("break", "broke")
    assert other_forms(("children",)) == ("child",)
    # the stemmer already joins "taking" and "take": only the forms it cannot reach are added
    assert other_forms(("taking", "running", "buys")) == ("took", "taken", "ran", "bought")


def test_regular_words_and_words_with_a_second_reading_get_no_other_form() -> None:
    assert other_forms(("hiking", "cars", "left", "rose", "wound", "born")) == ()


def test_a_form_already_in_the_question_is_not_searched_twice_and_the_count_is_bounded() -> None:
    assert other_forms(("broke", "break")) == ("broken",)
    many = ("went", "took", "bought", "told", "wrote", "gave", "sold")
    assert len(other_forms(many)) == MAX_FORMS


def test_the_forms_matches_count_as_the_question_words_own_once_each_newest_first() -> None:
    found = TermHits(
        messages=10,
        hits={
            "broken": [(4, 9, 12)],
            "break": [(4, 9, 12), (2, 5, 7)],
            "broke": [(1, 2, 30)],
            "car": [(2, 5, 7)],
        },
    )
    folded = fold_forms(found, ("broken", "car"), cap=2000)
    assert dict(folded.hits) == {"broken": [(4, 9, 12), (2, 5, 7), (1, 2, 30)], "car": [(2, 5, 7)]}
    assert fold_forms(found, ("broken", "car"), cap=2).hits["broken"] == [(4, 9, 12), (2, 5, 7)]


class FormsStore:
    """One agent whose one matching message says "broke"; notes the words each read asked for."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, ...]] = []

    def term_hits(
        self, agent_id: str, terms: Sequence[str], filters: RecallFilter, cap: int
    ) -> TermHits | None:
        self.asked.append(tuple(terms))
        return TermHits(messages=5, hits={t: [(3, 4, 10)] if t == "broke" else [] for t in terms})

    def recall_details(
        self, agent_id: str, exchange_ids: Sequence[int], seqs: Sequence[int]
    ) -> RecallDetails:
        return RecallDetails(facts=ProvenanceFacts(summary=None, exchanges=()), exchanges={}, messages={})


def test_a_search_reads_the_other_forms_and_ranks_their_match_under_the_question_word() -> None:
    store = FormsStore()
    page = Recall(store).search("agent", "what got broken?")
    assert store.asked == [("got", "broken", "get", "gotten", "break", "broke")]
    assert page.total == 1
    assert page.terms == ("got", "broken")
