"""The model-judged half of the LoCoMo retention benchmark: does a summary item state what a turn said?

Used by `benchmarks/locomo_retention_bench.py --judge` when ANTHROPIC_API_KEY is set. Each fact is one
call to the configured Anthropic model (`SUMMARIZER_MODEL`, default the settings' model) that answers YES
or NO; a call that fails counts as not judged, and the share is over the judged facts.
"""

from __future__ import annotations

from collections.abc import Sequence

import anthropic

from summarizer.settings import Settings

PROMPT = """A memory summary should keep the facts of a conversation turn.

Turn:
{turn}

Summary item:
{item}

Does the summary item state the facts of the turn (names, events, numbers, dates, plans), even in other
words? Small talk may be missing. Answer with one word: YES or NO."""


def judged_share(pairs: Sequence[tuple[str, str]]) -> tuple[int, int]:
    """(facts judged held, facts judged) for (turn text, item text) pairs."""
    model = Settings().model
    client = anthropic.Anthropic(max_retries=3)
    held = judged = 0
    for turn, item in pairs:
        if not item:
            judged += 1
            continue
        try:
            reply = client.messages.create(
                model=model,
                max_tokens=5,
                messages=[{"role": "user", "content": PROMPT.format(turn=turn, item=item)}],
            )
        except anthropic.APIError as error:
            print(f"judge: a call failed ({error.__class__.__name__}); that fact is not judged")
            continue
        text = "".join(block.text for block in reply.content if block.type == "text")
        judged += 1
        held += text.strip().upper().startswith("YES")
    return held, judged
