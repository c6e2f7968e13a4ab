"""Slack adapter latency, in process, against the test suite's fake Slack Web API on loopback.

Prints one JSON object: for a slash command (``/help``), a daily post (``/daily``) and a
button click, the time to Slack's ack (the 3 s budget) and to the reply's Web API call,
in milliseconds (median, p95, max over N runs). Run: ``.venv/bin/python bench/slack.py``.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from slack_bolt.request.async_request import AsyncBoltRequest  # noqa: E402

from bot.adapters.slack import SlackAdapter  # noqa: E402
from bot.bootstrap import bootstrap  # noqa: E402
from tests.adapters.slack.conftest import bank_of, slack_settings  # noqa: E402
from tests.adapters.slack.fake_slack import FakeSlack  # noqa: E402
from tests.adapters.slack.payloads import click, signed_headers, slash  # noqa: E402

RUNS = 50


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
    }


async def timed(
    adapter: SlackAdapter, fake: FakeSlack, body: str, method: str
) -> tuple[float, float]:
    before = len(fake.called(method))
    started = time.perf_counter()
    headers = signed_headers(body)
    response = await adapter.bolt.async_dispatch(AsyncBoltRequest(body=body, headers=headers))
    acked = time.perf_counter() - started
    assert response.status == 200
    await fake.wait_for(method, count=before + 1)
    replied = time.perf_counter() - started
    await adapter.settled()
    return acked, replied


async def main() -> None:
    fake = FakeSlack()
    await fake.start()
    results: dict[str, object] = {"runs": RUNS}
    with tempfile.TemporaryDirectory() as tmp:
        app = bootstrap(slack_settings(fake, f"sqlite:///{tmp}/bench.db"), bank=bank_of("choice"))
        adapter = SlackAdapter(app, app.settings)
        await timed(adapter, fake, slash("/help"), "chat.postEphemeral")  # warm-up
        for name, body_of, method in (
            ("slash_help", lambda i: slash("/help"), "chat.postEphemeral"),
            ("slash_daily", lambda i: slash("/daily", channel=f"C{i}"), "chat.postMessage"),
            # Distinct users answering the first daily post, in the channel it was posted in
            # (slash_daily's first run): each click is graded, not refused as not open.
            (
                "click_choice",
                lambda i: click("daily:1:B", user=f"W{i}", channel="C0"),
                "chat.postEphemeral",
            ),
        ):
            acks: list[float] = []
            replies: list[float] = []
            for i in range(RUNS):
                acked, replied = await timed(adapter, fake, body_of(i), method)
                acks.append(acked)
                replies.append(replied)
            results[name] = {"ack": summary(acks), "reply": summary(replies)}
        graded = [c for c in fake.called("chat.postEphemeral") if c.args["user"].startswith("W")]
        refused = [c for c in graded[-RUNS:] if "no longer open" in c.args.get("text", "")]
        assert not refused, f"{len(refused)} clicks were refused: {refused[0].args['text']}"
        app.close()
    await fake.stop()
    print(json.dumps(results))


if __name__ == "__main__":
    asyncio.run(main())
