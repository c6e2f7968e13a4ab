"""A suite-wide guard: a test that opens a connection to anything but loopback fails.

Tests never touch Slack, Discord or any other host: they drive the real framework code
against local fakes on 127.0.0.1. The guard wraps ``socket.socket.connect`` (and
``connect_ex``), which every Python-level client reaches, asyncio's included, and refuses
name look-ups of hosts other than ``localhost``. A refused attempt raises
:class:`NetworkBlocked` where it happens and is recorded, so that the test fails even when
the library under test catches the error and retries quietly.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


class NetworkBlocked(ConnectionRefusedError):
    """A connection to a host other than loopback was attempted during a test."""


def _is_loopback(host: object) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host.lower() in LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def allowed_address(family: int, address: Any) -> bool:
    """Whether a ``connect`` to ``address`` stays on this machine."""
    if family == getattr(socket, "AF_UNIX", object()):
        return True
    if isinstance(address, tuple) and address:
        return _is_loopback(address[0])
    return False


class NetworkGuard:
    """Patches the socket layer while active; ``violations`` lists what was refused."""

    def __init__(self) -> None:
        self.violations: list[str] = []
        self._saved: dict[str, Any] = {}

    def _refuse(self, what: str) -> NetworkBlocked:
        self.violations.append(what)
        return NetworkBlocked(f"tests may connect only to loopback, not to {what}")

    def install(self) -> None:
        real_connect: Callable[..., Any] = socket.socket.connect
        real_connect_ex: Callable[..., Any] = socket.socket.connect_ex
        real_getaddrinfo: Callable[..., Any] = socket.getaddrinfo
        guard = self

        def connect(sock: socket.socket, address: Any) -> Any:
            if not allowed_address(sock.family, address):
                raise guard._refuse(repr(address))
            return real_connect(sock, address)

        def connect_ex(sock: socket.socket, address: Any) -> Any:
            if not allowed_address(sock.family, address):
                raise guard._refuse(repr(address))
            return real_connect_ex(sock, address)

        def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
            if host is not None and not _is_loopback(host):
                try:
                    ipaddress.ip_address(str(host))
                except ValueError:  # a name: resolving it would ask a DNS server
                    guard.violations.append(f"a look-up of {host!r}")
                    raise socket.gaierror(
                        socket.EAI_NONAME, f"tests may not resolve {host!r}"
                    ) from None
            return real_getaddrinfo(host, *args, **kwargs)

        self._saved = {
            "connect": real_connect,
            "connect_ex": real_connect_ex,
            "getaddrinfo": real_getaddrinfo,
        }
        socket.socket.connect = connect  # type: ignore[method-assign]
        socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = getaddrinfo

    def uninstall(self) -> None:
        if self._saved:
            socket.socket.connect = self._saved["connect"]  # type: ignore[method-assign]
            socket.socket.connect_ex = self._saved["connect_ex"]  # type: ignore[method-assign]
            socket.getaddrinfo = self._saved["getaddrinfo"]
            self._saved = {}

    @contextmanager
    def watching(self) -> Iterator[list[str]]:
        """The violations recorded while the block runs (and forgets them afterwards)."""
        start = len(self.violations)
        seen: list[str] = []
        try:
            yield seen
        finally:
            seen.extend(self.violations[start:])
            del self.violations[start:]
