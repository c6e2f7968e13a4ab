"""Nobody unauthenticated can hurt the bot through ``POST /slack/events``: whatever the body
(too large, malformed, not UTF-8) or the headers (a timestamp of ``abc``), an unsigned request
gets 401 (413 when too large) before it is parsed, with no traceback and no body in the log;
a signed body that is no Slack payload gets 400."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time

import pytest

from bot.adapters.slack import SlackAdapter
from bot.web import MAX_BODY, create_web_app
from tests.adapters.discord.conftest import served
from tests.adapters.slack.fake_slack import FakeSlack
from tests.adapters.slack.payloads import SECRET, signed_headers, slash
from tests.support import raw_post, row_counts

FORM = "application/x-www-form-urlencoded"
MARKER = "unsigned-body-marker"

MALFORMED: list[tuple[str, bytes, str]] = [
    ("payload that is not JSON", f"payload=notjson{MARKER}".encode(), FORM),
    ("a JSON array", f'["{MARKER}"]'.encode(), "application/json"),
    ("a JSON string", f'"{MARKER}"'.encode(), "application/json"),
    ("not UTF-8", b"\xff\xfe\xfa" + MARKER.encode(), FORM),
    ("payload that is an array", f"payload=%5B%22{MARKER}%22%5D".encode(), FORM),
    ("empty", b"", FORM),
]
TIMESTAMPS = ["abc", "1e3", "", "-1", "²³", "9" * 40, " 1700000000"]


def quiet(records: list[logging.LogRecord]) -> None:
    """Nothing above INFO, no traceback, and not a byte of the body in the log."""
    assert [r.getMessage() for r in records if r.levelno > logging.INFO] == []
    assert all(r.exc_info is None for r in records)
    assert not any(MARKER in r.getMessage() for r in records)


@pytest.mark.parametrize(("what", "body", "content_type"), MALFORMED, ids=[m[0] for m in MALFORMED])
async def test_an_unsigned_malformed_body_gets_401_without_a_traceback(
    what: str,
    body: bytes,
    content_type: str,
    slack: SlackAdapter,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
) -> None:
    before = row_counts(slack.app)
    head = {"Content-Type": content_type, "Content-Length": str(len(body))}
    forged = {
        **head,
        "X-Slack-Request-Timestamp": str(int(time.time())),
        "X-Slack-Signature": "v0=" + "0" * 64,
    }
    with caplog.at_level(logging.DEBUG):
        async with served(create_web_app(slack.app, slack.routes())) as url:
            results = [
                await raw_post(url, "/slack/events", head, body),
                await raw_post(url, "/slack/events", forged, body),
            ]
    assert [status for status, _ in results] == [401, 401]
    quiet(caplog.records)
    assert row_counts(slack.app) == before
    assert fake_slack.calls == []


@pytest.mark.parametrize("timestamp", TIMESTAMPS)
async def test_a_timestamp_header_that_is_no_number_gets_401(
    timestamp: str, slack: SlackAdapter, fake_slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    body = slash("/daily")
    signed = signed_headers(body)
    head = {**signed, "x-slack-request-timestamp": timestamp, "Content-Length": str(len(body))}
    with caplog.at_level(logging.DEBUG):
        async with served(create_web_app(slack.app, slack.routes())) as url:
            status, _ = await raw_post(url, "/slack/events", head, body.encode())
    assert status == 401
    quiet(caplog.records)
    assert fake_slack.calls == []


async def test_an_oversized_unsigned_body_gets_413_and_is_never_logged(
    slack: SlackAdapter, fake_slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    body = (f"payload={MARKER}" + "x" * MAX_BODY).encode()
    head = {"Content-Type": FORM, "Content-Length": str(len(body))}
    with caplog.at_level(logging.DEBUG):
        async with served(create_web_app(slack.app, slack.routes())) as url:
            declared = await raw_post(url, "/slack/events", head, body)
            streamed = await raw_post(
                url, "/slack/events", {"Content-Type": FORM}, body, chunked=True
            )
    assert (declared[0], streamed[0]) == (413, 413)
    quiet(caplog.records)
    assert fake_slack.calls == []


@pytest.mark.parametrize(
    ("what", "body", "content_type"), MALFORMED[:5], ids=[m[0] for m in MALFORMED[:5]]
)
async def test_a_signed_body_that_is_no_slack_payload_gets_400_and_one_line(
    what: str,
    body: bytes,
    content_type: str,
    slack: SlackAdapter,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ts = str(int(time.time()))
    base = b"v0:" + ts.encode() + b":" + body
    signature = "v0=" + hmac.new(SECRET.encode(), base, hashlib.sha256).hexdigest()
    head = {
        "Content-Type": content_type,
        "Content-Length": str(len(body)),
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": signature,
    }
    with caplog.at_level(logging.INFO):
        async with served(create_web_app(slack.app, slack.routes())) as url:
            status, answer = await raw_post(url, "/slack/events", head, body)
    assert status == 400
    assert json.loads(answer) == {"error": "not a Slack payload"}
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and warnings[0].exc_info is None
    assert MARKER not in warnings[0].getMessage()
    assert fake_slack.calls == []
