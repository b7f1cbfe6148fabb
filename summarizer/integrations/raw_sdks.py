"""What a raw provider SDK answered, as messages to record: the public import path of
`summarizer.ingest.raw_sdks`, where the converters live beside the ingest readers they use."""

from summarizer.ingest.raw_sdks import anthropic_messages, as_json, openai_chat_messages, responses_messages

__all__ = ["anthropic_messages", "as_json", "openai_chat_messages", "responses_messages"]
