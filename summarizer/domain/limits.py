"""Ranges of the values front ends accept: what the database's integer columns can hold."""

from __future__ import annotations

INT32_MAX = 2**31 - 1
"""The largest value of an INTEGER column (versions, budgets, exchange ids, counts)."""
BIGINT_MAX = 2**63 - 1
"""The largest value of a BIGINT column (alert and run ids)."""
