"""The reads: what hosts and operators see, what an update reads with its claim, the fleet, the
figures, recall and costs. Plain SELECTs that take no locks."""
