"""A chat loop on the raw Anthropic SDK whose memory is summarizer: send `to_anthropic()`, record the answer.

Needs: no extra (the `anthropic` SDK comes with summarizer). Environment: ANTHROPIC_API_KEY (the chat's
own model); EXAMPLE_MODEL (default claude-sonnet-5-5), EXAMPLE_AGENT (default notes-bot) and
ANTHROPIC_BASE_URL (another endpoint) optionally.

    pip install tiered-summarizer
    export ANTHROPIC_API_KEY=...   # the chat's own model
    summarizer worker &            # folds what leaves the window into the tiered summary
    python examples/raw_anthropic.py

Without SUMMARIZER_* settings the memory is the embedded SQLite database under ./.summarizer/.
"""

from __future__ import annotations

import os
import sys

import anthropic

from summarizer.composition import build_summarizer

AGENT = os.environ.get("EXAMPLE_AGENT", "notes-bot")
MODEL = os.environ.get("EXAMPLE_MODEL", "claude-sonnet-5-5")


def main(questions: list[str]) -> None:
    memory = build_summarizer()
    client = anthropic.Anthropic()
    if not memory.store.agent_exists(AGENT):
        memory.record_message(AGENT, "system", "You are a terse note-taking assistant.")
    for question in questions:
        memory.record_message(AGENT, "user", question)
        reply = client.messages.create(
            model=MODEL, max_tokens=1024, **memory.get_context(AGENT).to_anthropic()
        )
        memory.record_anthropic(AGENT, reply)
        print("".join(block.text for block in reply.content if block.type == "text"))


if __name__ == "__main__":
    main(sys.argv[1:] or ["Note: the launch moved to 12 March.", "When is the launch?"])
