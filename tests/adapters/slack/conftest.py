"""Fixtures for the Slack adapter: the fake Slack Web API and adapters wired to it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from bot.adapters.slack import SlackAdapter
from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import load_pack
from bot.core.context import Grader
from tests.adapters.slack.fake_slack import FakeSlack
from tests.adapters.slack.payloads import SECRET, signed_headers

ROOT = Path(__file__).resolve().parents[3]
SAMPLE_PACK = ROOT / "content" / "packs" / "sample.yaml"


@pytest.fixture
async def fake_slack() -> AsyncIterator[FakeSlack]:
    fake = FakeSlack()
    await fake.start()
    yield fake
    await fake.stop()


def bank_of(kind: str) -> QuestionBank:
    """The sample pack's questions of one kind: the daily question is then of that kind."""
    return QuestionBank(q for q in load_pack(SAMPLE_PACK).questions if q.kind == kind)


def slack_settings(fake: FakeSlack, db_url: str, **more: object) -> Settings:
    values: dict[str, object] = {
        "studybot_database_url": db_url,
        "slack_bot_token": "xoxb-test",
        "slack_signing_secret": SECRET,
        "studybot_slack_api_url": fake.api_url,
        **more,
    }
    return Settings(**values)  # type: ignore[arg-type]


AdapterFactory = Callable[..., SlackAdapter]


@pytest.fixture
def make_adapter(
    fake_slack: FakeSlack, sqlite_url: str, clock: SimulatedClock
) -> Iterator[AdapterFactory]:
    """Build a Slack adapter on a fresh app; ``kind`` picks the daily question's kind."""
    apps: list[App] = []

    def make(kind: str = "choice", grade: Grader | None = None, **settings: object) -> SlackAdapter:
        app = bootstrap(
            slack_settings(fake_slack, sqlite_url, **settings),
            clock=clock,
            bank=bank_of(kind),
            auto_migrate=True,
            grade=grade,
        )
        apps.append(app)
        return SlackAdapter(app, app.settings)

    yield make
    for app in apps:
        app.close()


@pytest.fixture
def slack(make_adapter: AdapterFactory) -> SlackAdapter:
    """An adapter whose daily question is a choice question (buttons A, B, C…)."""
    return make_adapter("choice")


async def dispatch(adapter: SlackAdapter, body: str, **header_options: object) -> BoltResponse:
    """Send ``body``, signed as Slack signs it, through the real Bolt app."""
    headers = signed_headers(body, **header_options)  # type: ignore[arg-type]
    return await adapter.bolt.async_dispatch(AsyncBoltRequest(body=body, headers=headers))
