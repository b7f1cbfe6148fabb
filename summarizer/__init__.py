"""summarizer: background summarization of what leaves a long-running agent's context window."""

__version__ = "0.1.0"
