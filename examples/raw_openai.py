"""A chat loop on the raw OpenAI SDK whose memory is summarizer: send `to_openai_chat()`, record the answer.

Needs: no extra (the `openai` SDK comes with summarizer). Environment: OPENAI_API_KEY (the chat's own
model); EXAMPLE_MODEL (default gpt-4.1-mini), EXAMPLE_AGENT (default notes-bot) and OPENAI_BASE_URL (any
compatible server) optionally.

    pip install tiered-summarizer
    export OPENAI_API_KEY=...      # the chat's own model (OPENAI_BASE_URL for any compatible server)
    summarizer worker &            # folds what leaves the window into the tiered summary
    python examples/raw_openai.py

Without SUMMARIZER_* settings the memory is the embedded SQLite database under ./.summarizer/.
"""

from __future__ import annotations

import os
import sys

import openai

from summarizer.composition import build_summarizer

AGENT = os.environ.get("EXAMPLE_AGENT", "notes-bot")
MODEL = os.environ.get("EXAMPLE_MODEL", "gpt-4.1-mini")


def main(questions: list[str]) -> None:
    memory = build_summarizer()
    client = openai.OpenAI()
    if not memory.store.agent_exists(AGENT):
        memory.record_message(AGENT, "system", "You are a terse note-taking assistant.")
    for question in questions:
        memory.record_message(AGENT, "user", question)
        completion = client.chat.completions.create(
            model=MODEL, messages=memory.get_context(AGENT).to_openai_chat()
        )
        memory.record_openai(AGENT, completion)
        print(completion.choices[0].message.content)


if __name__ == "__main__":
    main(sys.argv[1:] or ["Note: the launch moved to 12 March.", "When is the launch?"])
