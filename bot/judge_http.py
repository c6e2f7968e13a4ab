"""The judge over HTTP: any OpenAI-compatible chat-completions endpoint (docs/judge.md).

Ollama (``http://127.0.0.1:11434/v1``), a llama.cpp server, vLLM or a hosted API. The
request is a plain ``POST {url}/chat/completions`` with JSON output asked for; it uses the
standard library's ``urllib``, because grading is synchronous (it runs in the worker thread
of each event), a base install then needs no HTTP client (httpx is only a dev dependency,
aiohttp only in the ``slack`` extra), and the time limit that matters is enforced around
the call by :class:`bot.core.grading.judge.JudgedGrader` anyway.
"""

from __future__ import annotations

import ipaddress
import json
import time
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from bot.config import Settings
from bot.core.grading.judge import Judge, JudgedGrader, JudgeUnavailable, Messages

if TYPE_CHECKING:
    from bot.core.context import Grader

MAX_RESPONSE_BYTES = 256 * 1024
MAX_TOKENS = 1024


def completions_url(url: str) -> str:
    """The chat-completions address of an API base URL (``…/v1`` → ``…/v1/chat/completions``);
    a URL that already ends so is kept."""
    url = url.strip().rstrip("/")
    return url if url.endswith("/chat/completions") else url + "/chat/completions"


def _loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class HttpJudge:
    """A :class:`~bot.core.grading.judge.Judge` on an OpenAI-compatible HTTP endpoint."""

    def __init__(self, url: str, model: str, key: str | None = None) -> None:
        self.url = completions_url(url)
        self._model = model
        self._key = key
        # A model on this machine is reached directly, whatever proxy the environment sets.
        handlers = [urllib.request.ProxyHandler({})] if _loopback(self.url) else []
        self._opener = urllib.request.build_opener(*handlers)

    @property
    def model(self) -> str:
        return self._model

    def ask(self, messages: Messages, *, timeout: float) -> str:
        """POST ``messages`` and return the first choice's message text. Raises
        JudgeUnavailable for a refused or failed connection, an HTTP error, a reply slower
        than ``timeout`` seconds or larger than 256 KB, or a body that is no chat completion."""
        body = {
            "model": self._model,
            "messages": [dict(m) for m in messages],
            "temperature": 0,
            "max_tokens": MAX_TOKENS,
            "stream": False,
            "response_format": {"type": "json_object"},
        }
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        request = urllib.request.Request(
            self.url, data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        deadline = time.monotonic() + timeout
        try:
            with self._opener.open(request, timeout=timeout) as response:
                raw = _read(response, deadline)
        except urllib.error.HTTPError as exc:
            exc.close()  # it holds the connection
            raise JudgeUnavailable(f"HTTP {exc.code} from {self.url}") from exc
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise JudgeUnavailable(f"cannot reach {self.url}: {reason}") from exc
        return _message_text(raw)


def _read(response: Any, deadline: float) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError("the reply took too long")
        chunk = response.read1(16384)  # what has arrived: a trickle cannot outlast the deadline
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise ValueError("the reply is too large")
        chunks.append(chunk)


def _message_text(raw: bytes) -> str:
    try:
        payload = json.loads(raw)
        content = payload["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError, RecursionError) as exc:
        raise JudgeUnavailable("the reply is not a chat completion") from exc
    if not isinstance(content, str):
        raise JudgeUnavailable("the reply's message has no text")
    return content


def judged(settings: Settings, rules: Grader) -> Grader:
    """``rules`` with the judge of the settings where they are unsure, or ``rules`` itself
    when no judge is configured (the default)."""
    if settings.studybot_judge_url is None:
        return rules
    key = settings.studybot_judge_key
    judge: Judge = HttpJudge(
        settings.studybot_judge_url,
        settings.studybot_judge_model,
        key.get_secret_value() if key is not None else None,
    )
    from bot.metrics import JUDGE

    return JudgedGrader(
        rules,
        judge,
        timeout=settings.studybot_judge_timeout,
        cache_size=settings.studybot_judge_cache_size,
        observe=lambda outcome: JUDGE.labels(outcome).inc(),
    )
