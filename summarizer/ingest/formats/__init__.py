"""The input formats, one module each (its `FORMAT`), listed in `registry`; `base` defines `LogFormat`."""
