"""The LLM providers the summarizer can use, one descriptor module each; `registry.PROVIDERS` lists them."""
