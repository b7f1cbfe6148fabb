"""Adapters behind the engine's LLM port: the Anthropic SDK, the offline summarizer and the fake."""
