"""`python -m tools.samples [PATH] [--seed N]`: write the sample conversation to PATH or stdout."""

from __future__ import annotations

from tools.samples.generate import main

raise SystemExit(main())
