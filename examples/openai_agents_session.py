"""A support agent on the OpenAI Agents SDK whose memory is summarizer: bounded context, however long it runs.

Needs: the `openai-agents` extra. Environment: OPENAI_API_KEY (the agent's own model); EXAMPLE_MODEL
(default gpt-4.1-mini), OPENAI_BASE_URL (another endpoint) and EXAMPLE_OPENAI_API (`responses`, the
default, or `chat_completions` for a server that has only the Chat Completions API) optionally.

    pip install "tiered-summarizer[openai-agents]"
    export OPENAI_API_KEY=...      # the agent's own model
    summarizer worker &            # folds what leaves the window into the tiered summary
    python examples/openai_agents_session.py

Without SUMMARIZER_* settings the memory is the embedded SQLite database under ./.summarizer/.
"""

from __future__ import annotations

import asyncio
import os

from agents import Agent, Model, Runner, function_tool, set_default_openai_api

from summarizer.api import Summarizer
from summarizer.integrations.openai_agents import SummarizerSession

QUESTIONS = (
    "Hi, I ordered a desk lamp last week, order A-1001. Where is it?",
    "And can you check order A-1002 too?",
    "Thanks. Which of the two orders did I ask about first?",
)


@function_tool
def order_status(order_id: str) -> str:
    """The shipping status of one order."""
    return f"Order {order_id} left the warehouse yesterday and arrives on Friday."


MODEL = os.environ.get("EXAMPLE_MODEL", "gpt-4.1-mini")


async def main(
    model: str | Model = MODEL, session_id: str = "support-42", summarizer: Summarizer | None = None
) -> list[str]:
    agent = Agent(
        name="support",
        instructions="You are a shop's support agent. Look orders up before you answer.",
        model=model,
        tools=[order_status],
    )
    session = SummarizerSession(session_id, summarizer)
    answers = []
    for question in QUESTIONS:
        result = await Runner.run(agent, question, session=session)
        answers.append(str(result.final_output))
        print(f"> {question}\n{result.final_output}\n")
    return answers


if __name__ == "__main__":
    if os.environ.get("EXAMPLE_OPENAI_API") == "chat_completions":
        set_default_openai_api("chat_completions")
    asyncio.run(main())
