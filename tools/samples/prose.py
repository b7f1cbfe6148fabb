"""What the sample assistant says: answers, walk-throughs and end-of-task reports.

Replies are assembled from each day's reasoning plus general engineering judgement, and now and then
they recall an earlier day's decision, which is what a summary has to keep track of across evictions.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tools.samples.script import Day

_TRADEOFFS: tuple[str, ...] = (
    "The cost is one more moving part, so I kept the interface small enough to replace later.",
    "I'd rather be explicit here than clever; the next person to touch this will be reading it during an "
    "incident.",
    "This is the boring option, and boring is what we want in an auth service.",
    "We can revisit once we have production numbers; for now the simple version is easy to measure.",
    "The alternative saves a few lines but hides a failure mode, which is a bad trade for security code.",
    "If this turns out to be wrong, the change is local: one module and its tests.",
    "It does add a little latency, but well under a millisecond against a budget of 200 ms for /token.",
    "Nothing here needs a new dependency; it is standard library plus what is already in pyproject.toml.",
    "I left a comment at the one non-obvious line explaining why, not what.",
    "The tests pin the behaviour we care about rather than the implementation, so refactoring stays cheap.",
    "Edge cases worth naming: empty input, expired input, and input from the future due to clock skew.",
    "Operationally this means one more thing to monitor, which I've noted for the dashboards.",
)

_OPENERS: tuple[str, ...] = (
    "Short answer first, then the reasoning.",
    "Here's how I'd think about it.",
    "Good question; it's worth settling now rather than later.",
    "My recommendation, with the reasons:",
    "Let me lay out the options and where I land.",
    "There are a couple of angles here.",
)

_REMARKS: tuple[str, ...] = (
    "Here's my take.",
    "Sure. The main points:",
    "Okay, here's what matters most.",
    "Right, let me put it in context.",
)

_CLOSERS: tuple[str, ...] = (
    "Want me to go ahead with that?",
    "If you agree, I'll start with the smallest piece and keep the tests green as we go.",
    "Happy to dig into any of these before we write code.",
    "Tell me if product has constraints I'm missing and I'll adjust.",
    "I'll note this in the ADR list so the reasoning survives.",
    "",
)


def answer(rng: random.Random, day: Day, ask: str, earlier: Sequence[Day]) -> str:
    """A considered reply to a question: numbered reasons, trade-offs, sometimes a callback."""
    reasons = rng.sample(day.reasons, rng.randint(2, len(day.reasons)))
    parts = [rng.choice(_OPENERS if ask.rstrip().endswith("?") else _REMARKS)]
    parts.append("\n".join(_point(rng, index, reason) for index, reason in enumerate(reasons, start=1)))
    parts.append(" ".join(rng.sample(_TRADEOFFS, rng.randint(1, 3))))
    if earlier and rng.random() < 0.6:
        past = rng.choice(earlier)
        parts.append(
            f"This also ties back to the {past.topic} work: {_lower_first(rng.choice(past.reasons))}"
        )
    if "summar" in ask.lower() or "write up" in ask.lower():
        parts.append(_retrospective(rng, [*earlier, day]))
    parts.append(rng.choice(_CLOSERS))
    return "\n\n".join(p for p in parts if p)


def _point(rng: random.Random, index: int, reason: str) -> str:
    text = f"{index}. {reason}"
    if rng.random() < 0.6:
        text += " " + rng.choice(_ELABORATIONS)
    return text


def ticket(rng: random.Random, day: Day, number: int) -> str:
    """A pasted ticket: how a user often opens a day's work."""
    criteria = rng.sample(day.reasons, min(4, len(day.reasons)))
    lines = [
        "Pasting the ticket so you have the context:",
        "",
        f"AUTH-{number}: {day.topic.capitalize()}",
        f"Reporter: platform-security   Priority: P{rng.randint(1, 3)}   Sprint: 2024-S{5 + number % 3}",
        "",
        "Context",
        f"authsvc is the shared authentication service. This ticket covers {day.topic}. It follows the design "
        "review held last week; notes from that review are summarized below.",
        "",
        "Acceptance criteria",
        *(f"- {criterion}" for criterion in criteria),
        "",
        "Out of scope",
        "- Changes to the gateway or to client SDKs (tracked separately).",
        "- Any migration of existing production sessions.",
        "",
        "Review notes",
        *(f"> {note}" for note in rng.sample(_TRADEOFFS, 2)),
    ]
    return "\n".join(lines)


_ELABORATIONS: tuple[str, ...] = (
    "In practice that means one code path to test instead of two.",
    "Every other service on the platform already assumes this, so deviating would cost more than it saves.",
    "It also keeps the blast radius of a leaked credential small and easy to reason about.",
    "We can assert this directly in a unit test, which is the best kind of guarantee we can get cheaply.",
    "This is what the OWASP cheat sheet recommends, and I don't see anything in our setup that argues otherwise.",
    "The failure mode if we get this wrong is silent, which is exactly why it deserves an explicit decision.",
    "I'd write this down in an ADR so that the next reviewer doesn't have to reverse-engineer it.",
    "It costs us a few lines now and saves a migration later.",
)


def code_excerpt(block: str, language: str = "python") -> str:
    lines = block.strip("\n").splitlines()
    shown = lines[:40] + (["# ..."] if len(lines) > 40 else [])
    return f"```{language}\n" + "\n".join(shown) + "\n```"


def walkthrough(rng: random.Random, day: Day, path: str, functions: Sequence[str]) -> str:
    """An explanation of a file the assistant has just read."""
    parts = [f"`{path}` has {len(functions)} top-level function{'s' if len(functions) != 1 else ''}:"]
    notes = (
        "pure, takes everything it needs as arguments",
        "the only place that touches the clock",
        "logs identifiers, never secrets",
        "raises a domain error that the route turns into a 401",
        "wraps the database access so tests can use a real session",
        "kept small on purpose; it's called on every request",
    )
    parts.append("\n".join(f"- `{name}` — {rng.choice(notes)}" for name in functions) or "- (nothing yet)")
    parts.append(rng.choice(day.reasons))
    if rng.random() < 0.5:
        parts.append(
            "One thing I'd change: the module mixes policy (TTLs, leeway) with mechanics. Moving the policy into "
            "Settings would make the security review easier."
        )
    return "\n\n".join(parts)


def report(rng: random.Random, day: Day, changes: Sequence[str], verified: str, excerpt: str = "") -> str:
    """The end-of-task message: what changed, how it was checked, what is next."""
    parts = [rng.choice(("Done.", "All green.", "That's in.", "Finished.", "Implemented and tested."))]
    parts.append("Changes:\n" + "\n".join(f"- {change}" for change in changes))
    if excerpt and rng.random() < 0.6:
        parts.append("The core of it:\n\n" + excerpt)
    parts.append(f"Verified: {verified}")
    if rng.random() < 0.6:
        parts.append(rng.choice(day.reasons))
    if rng.random() < 0.4:
        parts.append(rng.choice(_TRADEOFFS))
    return "\n\n".join(parts)


def status(rng: random.Random, day: Day, done: Sequence[str], left: Sequence[str]) -> str:
    done_text = "\n".join(f"- {item}" for item in done) or "- nothing committed yet today"
    left_text = "\n".join(f"- {item}" for item in left) or "- nothing planned; we can pick up polish items"
    return (
        f"Status on {day.topic}:\n\nDone:\n{done_text}\n\nLeft:\n{left_text}\n\n"
        f"Risks: {_lower_first(rng.choice(_TRADEOFFS))}"
    )


def _retrospective(rng: random.Random, days: Sequence[Day]) -> str:
    lines = ["Recap by area:"]
    for day in days:
        lines.append(f"- {day.topic.capitalize()}: {_lower_first(rng.choice(day.reasons))}")
    return "\n".join(lines)


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        return text[0].lower() + text[1:]
    return text
