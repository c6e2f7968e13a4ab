"""The suite's network guard: loopback is allowed, anything else is refused and recorded."""

from __future__ import annotations

import socket

import pytest

from tests.conftest import NETWORK
from tests.network_guard import NetworkBlocked


def test_a_connection_beyond_loopback_is_refused_and_recorded() -> None:
    with NETWORK.watching() as tried, socket.socket() as sock, pytest.raises(NetworkBlocked):
        sock.connect(("192.0.2.1", 443))  # TEST-NET-1: never routed
    assert tried == ["('192.0.2.1', 443)"]


def test_a_name_other_than_localhost_is_not_resolved() -> None:
    with NETWORK.watching() as tried, pytest.raises(socket.gaierror):
        socket.getaddrinfo("slack.com", 443)
    assert tried == ["a look-up of 'slack.com'"]


def test_loopback_connections_go_through() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with NETWORK.watching() as tried, socket.create_connection(server.getsockname()):
            pass
    assert tried == []
