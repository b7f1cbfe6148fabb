"""A support agent on LangChain's `create_agent` whose memory is summarizer: the model gets the summary and
the window, never the whole history, and nothing waits for a summary to be written.

Needs: the `langchain` extra (LangChain and langchain-openai, for the default "openai:" model).
Environment: OPENAI_API_KEY (the agent's own model); EXAMPLE_MODEL (default openai:gpt-4.1-mini, any
"provider:model" LangChain's `init_chat_model` knows, with that provider's package installed) and
OPENAI_BASE_URL (any compatible server) optionally.

    pip install "tiered-summarizer[langchain]"
    export OPENAI_API_KEY=...      # the agent's own model
    summarizer worker &            # folds what leaves the window into the tiered summary
    python examples/langchain_agent.py

Without SUMMARIZER_* settings the memory is the embedded SQLite database under ./.summarizer/.
"""

from __future__ import annotations

import os

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool

from summarizer.api import Summarizer
from summarizer.integrations.langchain import SummarizerMiddleware

QUESTIONS = (
    "Hi, I ordered a desk lamp last week, order A-1001. Where is it?",
    "And can you check order A-1002 too?",
    "Thanks. Which of the two orders did I ask about first?",
)


@tool
def order_status(order_id: str) -> str:
    """The shipping status of one order."""
    return f"Order {order_id} left the warehouse yesterday and arrives on Friday."


MODEL = os.environ.get("EXAMPLE_MODEL", "openai:gpt-4.1-mini")


def main(
    model: str | BaseChatModel = MODEL,
    agent_id: str = "support-42",
    summarizer: Summarizer | None = None,
) -> list[str]:
    agent = create_agent(
        model,
        tools=[order_status],
        system_prompt="You are a shop's support agent. Look orders up before you answer.",
        middleware=[SummarizerMiddleware(agent_id, summarizer)],
    )
    answers = []
    for question in QUESTIONS:
        # Only the new message: the middleware brings the memory.
        result = agent.invoke({"messages": [HumanMessage(question)]})
        answers.append(str(result["messages"][-1].content))
        print(f"> {question}\n{answers[-1]}\n")
    return answers


if __name__ == "__main__":
    main()
