"""What an exchange (or an item written earlier) says, as facts: the request, the outcome, the decisions
taken and the named artifacts (paths, endpoints, versions, numbers with units, code names).

Items written by the offline summarizer use a small labelled grammar ("Asked: … Done: … Decided: …
Artifacts: a, b."), so the same facts can be read back from an item's text when items are merged later.
Text from the conversation never carries a label of its own: a label word followed by a colon in the data
is rewritten ("Done -") before it is stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import EvictedExchange

OFFLINE_PREFIX = "[offline] "
LABELS = ("Topic", "Asked", "Done", "Work", "Decided", "Artifacts")
ASKED_CHARS = 120
DONE_CHARS = 160
DECISION_CHARS = 240
ARTIFACT_CHARS = 60
MAX_DECISIONS = 3
MAX_ARTIFACTS = 8
ELLIPSIS = "…"

_COMMAND = re.compile(
    r"^(?:uv|python3?|pytest|pip|npm|npx|yarn|git|make|cargo|go|bash|sh|docker|ruff|mypy)\s"
)
_WEIGHTED = re.compile(r"^(.+?) \((\d+)\)$")
_MORE = re.compile(r"^(?:and )?(\d+) more(?: requests)?$")
_LABEL_SPLIT = re.compile(r"(?:^|(?<=\s))(" + "|".join(LABELS) + r"):\s")
_LABEL_IN_DATA = re.compile(r"\b(" + "|".join(LABELS) + r"):")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[`A-Z0-9])")
_CLAUSE = re.compile(r"[,;:]\s|\s[-\u2013\u2014]\s|\s(?:and|but|so|because|then)\s")

DECISION = re.compile(
    r"(?:^\W*decision\s*[:\-]|\bwe(?:'ve)? decided\b|\bdecided to\b|\bwe (?:chose|picked|agreed)\b|"
    r"\bwe(?:'ll| will| are going to) (?:use|go with|keep|switch to|standardi[sz]e on|pin|adopt)\b|"
    r"\blet's (?:use|go with|standardi[sz]e on|pin|adopt|keep)\b|\b(?:we're |i'm )?going with\b|"
    r"\bagreed (?:to|on|that)\b|\bsettled on\b|\bfrom now on\b)",
    re.I,
)
_DECISION_WORDS = (
    "decision",
    "decided",
    "we chose",
    "we picked",
    "we agreed",
    "we'll",
    "we will",
    "we are going",
    "let's",
    "going with",
    "agreed",
    "settled on",
    "from now on",
)
ARTIFACT_SCAN_CHARS = 1_200
"""How much of a request or an answer is searched for artifacts (the head says what a message is about)."""
SENTENCE_SCAN_CHARS = 4_000
"""How much of a request or an answer is searched for its first sentence that says something."""
_DECISION_LEAD = re.compile(r"^\W*decision\s*[:\-]\s*", re.I)
_LOW = re.compile(
    r"\b(debug\w*|typo|trivial|explor\w*|print|wip|oops|dead end|nevermind|never mind)\b",
    re.I,
)
_FILLER = re.compile(
    r"^\W*(?:ok(?:ay)?|sure|done|that's in|here(?:'s| is)|got it|right|hi|hello|hey|thanks|thank you|great|"
    r"yes|no|you're welcome|perfect|alright|\d+\.?$)\b",
    re.I,
)

_ARTIFACT_PATTERNS: tuple[str, ...] = (
    r"\b(?:GET|POST|PUT|PATCH|DELETE)\s+/[\w/{}.:-]*",  # HTTP endpoints
    r"(?<![\w.+-])[\w.+-]++@[\w-]++\.[\w.]+\b",  # e-mail addresses
    r"(?<![\w/.-])(?:\.{0,2}/)?(?:[\w.-]++/)+[\w.-]*\w",  # paths with a directory
    r"(?<![\w/.-])[\w-]++\.(?:py|toml|ya?ml|json|md|sql|ts|js|go|rs|ini|cfg|txt|sh|pem|lock)\b",
    r"(?<![\w.-])[A-Za-z][\w.-]*+(?:==|>=|<=|~=)\d[\w.]*",  # pins
    r"(?<![\w-])[A-Z][\w-]*+\s+v?\d+\.\d+(?:\.\d+)*\b",  # "PyJWT 2.8.0", "Python 3.12"
    r"\bv?\d+\.\d+\.\d+(?:[-+][\w.]+)?\b",  # bare versions
    r"(?<![\w,.])\d[\d,.]*+\s?(?:seconds?|minutes?|min|hours?|days?|weeks?|KB|MB|GB|KiB|MiB|GiB|%|"
    r"tokens?|requests? per (?:second|minute|hour)|rps|workers?|retries|attempts|connections)\b",
    r"`[^`\n]{2,60}`",  # code names in backticks
    r"\b[a-z][a-z0-9]*+(?:_[a-z0-9]++)+\b",  # snake_case names and ids (mia_li_3668)
    r"\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{4,12}\b",  # codes (HAT072, INC4521)
    r"\$\d[\d,]*(?:\.\d+)?",  # amounts
)
_ARTIFACT = re.compile("|".join(f"(?:{p})" for p in _ARTIFACT_PATTERNS))
"""One pass over the text: the first kind that matches at a position wins, in the order above. A pattern
that starts with a run of characters starts only where that run starts (a lookbehind, not `\b`): tried
from every character of a long run, it made a line of `a.a.a.` cost its length squared."""


@dataclass(frozen=True, slots=True)
class Facts:
    asked: tuple[str, ...] = ()
    done: tuple[str, ...] = ()
    work: tuple[str, ...] = ()
    decisions: tuple[str, ...] = ()
    artifacts: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    weights: tuple[int, ...] = ()
    """How many exchanges named each artifact (1 when not given)."""
    more_work: int = 0
    """Accounts of work left out of earlier merges ("and 4 more")."""

    def weight(self, index: int) -> int:
        return self.weights[index] if index < len(self.weights) else 1

    @property
    def gists(self) -> tuple[str, ...]:
        """Short accounts of the work done, oldest first: merged work, then requests."""
        return _unique((*self.work, *self.asked))


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    out: list[str] = []
    for value in values:
        key = value.casefold()
        if value and key not in seen:
            seen.add(key)
            out.append(value)
    return tuple(out)


def clean(text: str) -> str:
    """One line, no label words of our own grammar, no trailing separators."""
    text = " ".join(text.split())
    text = _LABEL_IN_DATA.sub(r"\1 -", text)
    return text.strip(" ;,")


def sentences(text: str) -> list[str]:
    out: list[str] = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-*]|\d+\.)\s)", text):
        block = " ".join(block.split()).lstrip("-*• ").strip()
        if block:
            out.extend(s.strip() for s in _SENTENCE.split(block) if s.strip())
    return out


def cut(text: str, limit: int) -> str:
    """`text` when it fits; else the longest leading clause that fits (no ellipsis, it reads whole);
    else a cut at a word boundary marked with an ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[: limit + 1]
    ends = [m.start() for m in _CLAUSE.finditer(head) if m.start() >= limit // 3]
    if ends:
        return head[: ends[-1]].rstrip(" ,;:-")
    words = text[: limit - 1].rsplit(" ", 1)[0] or text[: limit - 1]
    return words.rstrip(" ,;:") + ELLIPSIS


def _substantive(sentence: str) -> bool:
    words = sentence.split()
    return len(words) >= 4 and not sentence.endswith(":") and not (_FILLER.match(sentence) and len(words) < 7)


def first_sentence(text: str, limit: int) -> str:
    """The first sentence that says something (not a greeting, a thank-you or a list number), else the
    first sentence of two words or more, else ""."""
    found = sentences(text)
    pick = next((s for s in found if _substantive(s)), None)
    if pick is None:
        pick = next((s for s in found if len(s.split()) >= 2), "")
    return cut(clean(pick).rstrip("."), limit) if pick else ""


def states_decision(text: str) -> bool:
    lowered = text.casefold().replace("\u2019", "'")
    return any(word in lowered for word in _DECISION_WORDS) and bool(DECISION.search(text))


def decisions_in(text: str) -> list[str]:
    lowered = text.casefold().replace("\u2019", "'")
    if not any(word in lowered for word in _DECISION_WORDS):
        return []
    found = []
    for sentence in sentences(text):
        if "```" in sentence or sentence.startswith("#") or sentence.endswith("?"):
            continue
        if DECISION.search(sentence):
            decision = _DECISION_LEAD.sub("", clean(sentence)).rstrip(".")
            if decision:
                found.append(cut(decision[0].upper() + decision[1:], DECISION_CHARS))
    return found


def artifacts_in(text: str) -> list[str]:
    """Named artifacts in order of appearance; a name inside a longer one found earlier is left out."""
    out: list[str] = []
    for match in _ARTIFACT.finditer(text):
        value = clean(match.group(0).strip().strip("`").rstrip(".,;:"))
        if not 2 <= len(value) <= ARTIFACT_CHARS or ", " in value or value.endswith("/"):
            continue
        if not any(value in kept for kept in out):
            out = [kept for kept in out if kept not in value]
            out.append(value)
    return list(_unique(out))


def names_artifact(text: str) -> bool:
    """Whether `text` names an artifact (one search, no list built)."""
    return _ARTIFACT.search(text) is not None


def _tool_text(exchange: EvictedExchange) -> str:
    """What the agent's tool calls named: paths, commands and ids (string values without spaces)."""
    parts: list[str] = []
    for message in exchange.messages:
        if message.kind is Kind.TOOL_CALL and isinstance(message.input, dict):
            for key, value in message.input.items():
                if not isinstance(value, str) or not value.strip() or len(value) > 200:
                    continue
                if key == "command":
                    parts.append(f"`{value}`")
                elif not any(c.isspace() for c in value) and len(value) <= ARTIFACT_CHARS:
                    parts.append(value)
    return " ".join(parts)


def facts_of_exchange(exchange: EvictedExchange) -> Facts:
    request = next((m.content for m in exchange.messages if m.kind is Kind.USER and m.content.strip()), "")
    answer = next(
        (m.content for m in reversed(exchange.messages) if m.kind is Kind.ASSISTANT and m.content.strip()),
        "",
    )
    said = "\n\n".join(
        m.content for m in exchange.messages if m.kind in (Kind.USER, Kind.ASSISTANT) and m.content.strip()
    )
    decisions = _unique(decisions_in(said))[:MAX_DECISIONS]
    scanned = (request[:ARTIFACT_SCAN_CHARS], answer[:ARTIFACT_SCAN_CHARS], _tool_text(exchange))
    artifacts = artifacts_in(" ".join((*decisions, *scanned)))
    asked = first_sentence(request[:SENTENCE_SCAN_CHARS], ASKED_CHARS)
    if states_decision(asked) or any(asked.casefold() in d.casefold() for d in decisions):
        asked = ""
    done = first_sentence(answer[:SENTENCE_SCAN_CHARS], DONE_CHARS)
    return Facts(
        asked=(asked,) if asked else (),
        done=(done,) if done and done != asked else (),
        decisions=decisions,
        artifacts=tuple(artifacts[:MAX_ARTIFACTS]),
    )


def facts_of_text(text: str) -> Facts:
    """The facts of an item's text: labelled segments when the offline grammar wrote it, else the text
    itself taken as one piece of work, with its decisions and artifacts found as in an exchange."""
    body = text.removeprefix(OFFLINE_PREFIX).strip()
    parts = _LABEL_SPLIT.split(body)
    if len(parts) < 3:
        plain = clean(body).rstrip(".")
        return Facts(
            work=(cut(plain, DONE_CHARS),) if plain else (),
            decisions=_unique(decisions_in(body))[:MAX_DECISIONS],
            artifacts=tuple(artifacts_in(body)),
        )
    found: dict[str, list[str]] = {label: [] for label in LABELS}
    more = 0
    for label, value in zip(parts[1::2], parts[2::2], strict=True):
        value = value.strip().rstrip(".").strip()
        if not value:
            continue
        if label in ("Asked", "Done"):  # one piece each: what one side said, which may hold "; "
            found[label].append(value)
        elif label == "Work":
            for piece in (p.strip() for p in value.split("; ") if p.strip()):
                counted = _MORE.match(piece)
                if counted:
                    more += int(counted.group(1))
                else:
                    found[label].append(piece)
        elif label == "Artifacts":
            found[label].extend(p.strip() for p in value.split(", ") if p.strip())
        else:
            found[label].append(value)
    weighted: dict[str, int] = {}
    for entry in found["Artifacts"]:
        match = _WEIGHTED.match(entry)
        name, count = (match.group(1), int(match.group(2))) if match else (entry, 1)
        weighted[name] = weighted.get(name, 0) + count
    said = " ".join((*found["Asked"], *found["Done"], *found["Work"]))[:ARTIFACT_SCAN_CHARS]
    for name in artifacts_in(said):  # an item leaves out the artifacts its words already show
        if not any(name in known for known in weighted):
            weighted[name] = 1
    return Facts(
        asked=_unique(found["Asked"]),
        done=_unique(found["Done"]),
        work=_unique(found["Work"]),
        decisions=_unique(found["Decided"]),
        artifacts=tuple(weighted),
        topics=_unique(found["Topic"]),
        weights=tuple(weighted.values()),
        more_work=more,
    )


def merge_facts(many: Iterable[Facts]) -> Facts:
    """The facts of several items as one: artifacts weighted by how often they were named, the most
    named first."""
    many = list(many)
    weights: dict[str, int] = {}
    for facts in many:
        for i, artifact in enumerate(facts.artifacts):
            weights[artifact] = weights.get(artifact, 0) + facts.weight(i)
    ranked = sorted(weights, key=lambda a: (bool(_COMMAND.match(a)), -weights[a]))
    return Facts(
        work=_unique(g for f in many for g in f.gists),
        decisions=_unique(d for f in many for d in f.decisions),
        artifacts=tuple(ranked),
        topics=_unique(t for f in many for t in f.topics),
        weights=tuple(weights[a] for a in ranked),
        more_work=sum(f.more_work for f in many),
    )


def is_low(text: str) -> bool:
    return bool(_LOW.search(text))


def topic_of(facts: Facts) -> str | None:
    """What an item is about, for grouping: its first file path, else its first artifact."""
    for artifact in facts.artifacts:
        if "/" in artifact or re.search(r"\.\w{1,5}$", artifact):
            return artifact
    return facts.artifacts[0] if facts.artifacts else None
