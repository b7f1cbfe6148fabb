"""Recall's word forms: the irregular English forms a stemmer cannot join, searched with the question's word.

Both full-text engines stem English words (PostgreSQL's `english` configuration, SQLite's Porter
tokenizer), so "hiking" finds "hike" and "cars" finds "car". A stemmer only cuts endings, though: "broke"
never meets "broken" or "break", "bought" never meets "buy", "children" never meets "child". A question
is often worded in another tense than the turn that answers it ("what has Evan had broken?" against "my
old Prius broke down"), so each question word that is one of the forms below is also searched as the
others (`other_forms`), and their matches count as the question word's own (`fold_forms`): one word, one
inverse document frequency over the messages that hold any of its forms, whatever the database.

The table is a closed list of common irregular verbs and plurals, not a thesaurus: words whose forms
also read as another common word (`left`, `rose`, `wound`, `lay`, `born`) are not in it.
"""

from __future__ import annotations

from collections.abc import Sequence

from summarizer.domain.recall import STOP_WORDS, TermHits

MAX_FORMS = 4
"""Other forms searched per question at most (each is one more word read)."""

_IRREGULAR = """
arise arose arisen; awake awoke awoken; beat beaten; become became; begin began begun; bend bent;
bite bit bitten; bleed bled; blow blew blown; break broke broken; breed bred; bring brought;
build built; burn burnt; buy bought; catch caught; choose chose chosen; come came; creep crept;
deal dealt; dig dug; draw drew drawn; dream dreamt; drink drank drunk; drive drove driven;
eat ate eaten; fall fell fallen; feed fed; feel felt; fight fought; find found; flee fled;
fly flew flown; forget forgot forgotten; forgive forgave forgiven; freeze froze frozen; get got gotten;
give gave given; go went gone; grow grew grown; hang hung; hear heard; hide hid hidden; hold held;
keep kept; know knew known; lead led; lean leant; leap leapt; learn learnt; lend lent; light lit;
lose lost; make made; mean meant; meet met; pay paid; ride rode ridden; ring rang rung; run ran;
say said; see saw seen; seek sought; sell sold; send sent; shake shook shaken; shine shone;
shoot shot; show shown; shrink shrank shrunk; sing sang sung; sink sank sunk; sit sat; sleep slept;
slide slid; speak spoke spoken; speed sped; spend spent; spin spun; stand stood; steal stole stolen;
stick stuck; sting stung; strike struck; swear swore sworn; sweep swept; swim swam swum; swing swung;
take took taken; teach taught; tear tore torn; tell told; think thought; throw threw thrown;
understand understood; wake woke woken; wear wore worn; weave wove woven; weep wept; win won;
write wrote written; child children; man men; woman women; person people; foot feet; tooth teeth;
mouse mice
"""


def _table(groups: str) -> dict[str, tuple[str, ...]]:
    forms: dict[str, tuple[str, ...]] = {}
    for group in groups.split(";"):
        words = tuple(w for w in group.split() if w not in STOP_WORDS)
        for word in words:
            forms[word] = tuple(w for w in words if w != word)
    return forms


FORMS = _table(_IRREGULAR)
"""Each listed form (lower case) to its other forms, in the table's order."""


def other_forms(terms: Sequence[str]) -> tuple[str, ...]:
    """The forms to search besides `terms` (at most `MAX_FORMS`, none already a term), in order."""
    extra: list[str] = []
    for term in terms:
        for form in FORMS.get(_base(term), ()):
            if form not in terms and form not in extra and len(extra) < MAX_FORMS:
                extra.append(form)
    return tuple(extra)


def _base(term: str) -> str:
    """The listed form a question word inflects, for the endings the table leaves out ("takes",
    "taking", "running"): the word itself when none."""
    if term in FORMS or len(term) < 4:
        return term
    if term.endswith("ing"):
        stem = term[:-3]
        for base in (stem, stem + "e", stem[:-1] if stem[-1:] == stem[-2:-1] else ""):
            if base in FORMS:
                return base
    if term.endswith("s") and term[:-1] in FORMS:
        return term[:-1]
    return term


def fold_forms(found: TermHits, terms: Sequence[str], cap: int) -> TermHits:
    """`found` (read for `terms` and their `other_forms`) with each term's forms' matches counted as
    the term's own: one list per term of `terms`, a message once, the newest `cap` of them."""
    hits = {term: list(found.hits.get(term, ())) for term in terms}
    for term in terms:
        forms = [f for f in FORMS.get(_base(term), ()) if f in found.hits and f not in hits]
        if not forms:
            continue
        merged = {seq: (exchange_id, seq, tokens) for exchange_id, seq, tokens in hits[term]}
        for form in forms:
            for exchange_id, seq, tokens in found.hits[form]:
                merged.setdefault(seq, (exchange_id, seq, tokens))
        hits[term] = [merged[seq] for seq in sorted(merged, reverse=True)[:cap]]
    return TermHits(messages=found.messages, hits=hits, times=found.times, latest=found.latest)
