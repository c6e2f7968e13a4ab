"""A fake OpenAI-compatible chat-completions endpoint on 127.0.0.1, for the judge's tests.

It records every request and answers with what the test scripted: a judge's reading (made
into a chat completion), any raw body, an HTTP error, or nothing until released (a judge
too slow for the deadline). It runs in a thread, on port 0, for the duration of a test.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, bytes]


def completion(content: str) -> Reply:
    """A chat completion whose first choice says ``content``."""
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
    }
    return 200, json.dumps(body).encode()


def reading(*points: tuple[str, str, str]) -> Reply:
    """A chat completion whose content is a judge's reading: (id, status, evidence) each."""
    items = [{"id": i, "status": s, "evidence": e} for i, s, e in points]
    return completion(json.dumps({"points": items}))


@dataclass
class FakeJudgeServer:
    """Answers POST /v1/chat/completions with ``respond(request body)``."""

    respond: Callable[[dict[str, Any]], Reply] = lambda body: reading()
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    hold: bool = False  # answer nothing until ``release`` is set
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def user_data(self, n: int = -1) -> dict[str, Any]:
        """The JSON object the ``n``-th request carried as its user message."""
        messages = self.requests[n]["messages"]
        user = next(m for m in messages if m["role"] == "user")
        data: dict[str, Any] = json.loads(user["content"])
        return data


@contextmanager
def fake_judge(
    respond: Callable[[dict[str, Any]], Reply] | None = None, *, hold: bool = False
) -> Iterator[FakeJudgeServer]:
    fake = FakeJudgeServer(hold=hold)
    if respond is not None:
        fake.respond = respond

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            fake.requests.append(body)
            fake.headers.append({k.lower(): v for k, v in self.headers.items()})
            if self.path != "/v1/chat/completions":
                status, payload = 404, b'{"error": "not found"}'
            elif fake.hold:
                fake.release.wait(30)
                status, payload = reading()
            else:
                status, payload = fake.respond(body)
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except OSError:  # the client gave up waiting (the slow judge's test)
                pass

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    fake.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


def closed_port() -> int:
    """A loopback port that nothing listens on (the judge is down)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
