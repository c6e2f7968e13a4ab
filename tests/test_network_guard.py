"""The suite's network guard: loopback is allowed, anything else is refused and recorded."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import NETWORK, ROOT
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


INNER = """
import os
import socket
from pathlib import Path


def test_leaves_loopback_and_swallows_the_refusal():
    Path(os.environ["GUARD_RECORD"]).write_text(os.environ.get("PYTEST_XDIST_WORKER", ""))
    with socket.socket() as sock:
        try:
            sock.connect(("192.0.2.1", 443))
        except ConnectionRefusedError:
            pass  # as a library that retries quietly would


def test_stays_on_loopback():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        socket.create_connection(server.getsockname()).close()
"""


def test_under_xdist_workers_a_test_that_leaves_loopback_fails(tmp_path: Path) -> None:
    """``make test`` runs the suite on pytest-xdist workers: the guard is installed in each
    worker (one is enough to show it), and there it fails the test that tried, even when the
    refusal was caught; the test beside it passes."""
    (tmp_path / "test_inner.py").write_text(INNER, encoding="utf-8")
    record = tmp_path / "worker"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GUARD_"))}
    result = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider",
            "-n", "1", "-q", "--rootdir", str(tmp_path), str(tmp_path / "test_inner.py"),
        ],
        cwd=ROOT, env={**env, "GUARD_RECORD": str(record)},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "2 passed, 1 error" in out, out  # the guard fails it as it tears down
    assert "ERROR at teardown of test_leaves_loopback_and_swallows_the_refusal" in out
    assert "the test tried to leave loopback: ('192.0.2.1', 443)" in out
    assert record.read_text(encoding="utf-8").startswith("gw")  # it ran on a worker
