"""A worker survives a broker outage: closing a channel whose connection is already torn down, with
unacknowledged messages on it, fails with a connection error (which Celery ignores and reconnects after),
never with the AttributeError that made the stock transport shut the worker down."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from kombu import Connection, Exchange, Queue
from kombu.common import ignore_errors

from summarizer.broker.celery_config import REDIS_TRANSPORT, celery_config
from summarizer.settings import load_settings
from tests.support.fleet import RedisServer

pytestmark = [pytest.mark.redis]


def test_fleet_config_uses_the_fixed_transport_for_redis_only(tmp_path: Path) -> None:
    redis_conf = celery_config(load_settings(broker_url="redis://127.0.0.1:6379/0", data_dir=tmp_path))
    assert redis_conf["broker_transport"] == REDIS_TRANSPORT
    embedded = celery_config(load_settings(broker_url="", data_dir=tmp_path))
    assert "broker_transport" not in embedded


def _outage_with_unacked_message(url: str, transport: str | None, redis: RedisServer) -> Connection:
    """A consumer holding one unacked message, the broker gone, a first close cut short by the failing
    blocking read, the transport torn down under the channel: the state Celery's connection-loss cleanup
    leaves behind before it closes the connection a second time."""
    conn = Connection(url, transport=transport)
    queue = Queue("t", Exchange("t"), "t")
    with conn.Producer() as producer:
        producer.publish({"wake": "a"}, exchange=queue.exchange, routing_key="t", declare=[queue])
    received: list[Any] = []
    consumer = conn.Consumer([queue], callbacks=[lambda _body, message: received.append(message)])
    consumer.consume()
    conn.drain_events(timeout=5)
    assert len(received) == 1  # held, not acked: a late-ack task still running
    with pytest.raises(socket.timeout):
        conn.drain_events(timeout=0.2)  # the consumer is back in its blocking read
    redis.stop()
    channel: Any = conn.default_channel
    ignore_errors(conn, channel.close)  # the pending read fails first: a connection error
    assert not channel.closed
    conn.transport.client = None  # what tearing down the transport does
    return conn


def test_stock_transport_fails_with_attribute_error(redis_server: RedisServer) -> None:
    conn = _outage_with_unacked_message(redis_server.url, None, redis_server)
    channel: Any = conn.default_channel
    with pytest.raises(AttributeError):
        ignore_errors(conn, channel.close)


def test_fixed_transport_fails_with_a_connection_error_only(redis_server: RedisServer) -> None:
    conn = _outage_with_unacked_message(redis_server.url, REDIS_TRANSPORT, redis_server)
    channel: Any = conn.default_channel
    ignore_errors(conn, channel.close)  # a connection error: ignored, the worker goes on to reconnect
    assert channel.closed
