"""The broker side: the Celery configuration every process shares, kombu's Redis transport with its outage
fix, and the wake-ups a host sends after an eviction commits. The update logic itself (service/) never
imports Celery or Redis."""
