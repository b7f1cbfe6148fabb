"""kombu's Redis transport, with the one change that lets a worker survive a broker outage.

When the broker connection drops while a worker holds unacknowledged messages (late acks: tasks running),
Celery tears the connection down and then closes it again to release the socket. Depending on where the
event loop was (a BRPOP in flight or not), the first pass can drop the transport's link to its connection
before the channel is closed; the second pass then tries to re-queue the unacked messages, asks for the
connection parameters of a connection that no longer exists and fails with an ``AttributeError``. Celery
only ignores connection errors there, so it takes the ``AttributeError`` as unrecoverable and the worker
shuts down instead of reconnecting.

Here a channel whose connection is gone raises a connection error instead, which every cleanup path
already ignores, and the worker reconnects. Nothing is lost: the unacked messages stay in Redis's unacked
index and come back after the visibility timeout (or vanished with a restarted Redis), and the dispatcher
re-sends a wake-up for every due queue row either way.
"""

from __future__ import annotations

from typing import Any

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError


class BrokerConnectionGone(RedisConnectionError):
    """The channel's connection was already torn down: nothing can be sent or restored through it."""


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> Any:
        if self.connection.client is None:
            raise BrokerConnectionGone("the broker connection was closed")
        parent: Any = super()  # the stubs do not declare this private method
        return parent._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    Channel = Channel
