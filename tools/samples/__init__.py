"""The generator of the bundled sample conversation (`summarizer/samples/coding_agent.jsonl`).

Regenerate the shipped file with `uv run python -m tools.samples summarizer/samples/coding_agent.jsonl`.
"""
