"""The pure domain core: message kinds, token counting and sliding-window rules.

Nothing here imports a database driver, a broker or an LLM SDK; storage and workers are adapters around it.
"""
