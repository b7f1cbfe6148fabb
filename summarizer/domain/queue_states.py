"""The states of an agent's single summary-update queue row.

pending: due (at `available_at`); running: claimed by a worker under a lease; idle: nothing to do;
failed: parked after repeated failures until an operator requeues it.
"""

from __future__ import annotations

PENDING = "pending"
RUNNING = "running"
IDLE = "idle"
FAILED = "failed"
STATES = (PENDING, RUNNING, IDLE, FAILED)
