"""An amount of US dollars as an operator types it: digits, at most one decimal point, an optional `$`.

Nothing else is read as a number: `5,00` is five dollars in much of the world and five hundred in the
rest, `1,000` and `1_000` group digits one way among several, `1e3`, `NaN` and `-5` are no budget anyone
means. Each is refused with the reason instead of being guessed at.
"""

from __future__ import annotations

import re
from decimal import Decimal

_AMOUNT = re.compile(r"\$?(?:\d+(?:\.\d*)?|\.\d+)")


def parse_usd(text: str) -> Decimal:
    """`text` (`5`, `0.25`, `$12.50`, spaces around allowed) as a Decimal; ValueError saying why not."""
    cleaned = text.strip()
    if _AMOUNT.fullmatch(cleaned) is None:
        raise ValueError(f"{cleaned!r} is not an amount in USD: {_why(cleaned)}")
    return Decimal(cleaned.removeprefix("$"))


def _why(cleaned: str) -> str:
    if "," in cleaned or "_" in cleaned:
        return "write it with a decimal point and no digit grouping, such as 5.00 or 1000"
    if cleaned.startswith("-") or cleaned.lstrip("+").lower() in ("nan", "inf", "infinity"):
        return "a budget is a number of dollars from 0 up"
    return "write digits with at most one decimal point, such as 5, 0.25 or $12.50"
