"""The answer router on Slack, as a person with a personal quiz open meets a live round in
the channel: whatever way they answer there (a slash command, a reply in the live question's
thread, a mention of the bot, the live question's buttons) answers the live round; the quiz's
own buttons and a DM to the bot answer the quiz."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import select

from bot.adapters.slack import SlackAdapter
from bot.bootstrap import bootstrap
from bot.core.clock import SimulatedClock
from bot.core.content import Question
from bot.core.display import displayed, quiz_seed
from bot.db.models import AttemptRow, OutboxRow, QuizSessionRow
from tests.adapters.slack.conftest import bank_of, dispatch, slack_settings
from tests.adapters.slack.fake_slack import BOT_USER_ID, FakeSlack
from tests.adapters.slack.payloads import USER, click, message_event, slash
from tests.support import right_letter

OTHER = "W333"


@pytest.fixture
async def slack(
    fake_slack: FakeSlack, db_url: str, clock: SimulatedClock
) -> AsyncIterator[SlackAdapter]:
    """The adapter on each database (SQLite, and PostgreSQL when configured), stopped as
    `studybot run` stops it: events in hand and the outbox's pass finish first."""
    app = bootstrap(
        slack_settings(fake_slack, db_url), clock=clock, bank=bank_of("choice"), auto_migrate=True
    )
    adapter = SlackAdapter(app, app.settings)
    yield adapter
    await adapter.stop()
    await app.stop()
    app.close()


def session_of(slack: SlackAdapter, mode: str) -> QuizSessionRow:
    with slack.app.session_factory() as session:
        return session.scalars(select(QuizSessionRow).where(QuizSessionRow.mode == mode)).one()


def shown(slack: SlackAdapter, mode: str) -> tuple[QuizSessionRow, Question]:
    """The session of ``mode`` and its current question, choices as they are shown."""
    row = session_of(slack, mode)
    question = displayed(
        slack.app.services.bank.get(row.question_ids[row.position]), quiz_seed(row.id)
    )
    assert question is not None
    return row, question


def live_answer(slack: SlackAdapter) -> str:
    """The right letter of the live round's current question, as the channel sees it."""
    return right_letter(shown(slack, "live")[1])


def live_post_ts(slack: SlackAdapter) -> str:
    """The Slack ts of the live round's first question post in the channel."""
    row = session_of(slack, "live")
    with slack.app.session_factory() as session:
        ref = session.scalar(
            select(OutboxRow.message_ref).where(OutboxRow.key == f"live:{row.id}:0:ask")
        )
    assert ref is not None
    return ref.split(":", 1)[1]


async def quiz_then_live_round(slack: SlackAdapter, fake: FakeSlack) -> None:
    """The user opens a personal quiz in the channel; someone starts a live round there."""
    await dispatch(slack, slash("/quiz", "2"))
    await dispatch(slack, slash("/quiz", "live 2", user=OTHER))
    await slack.settled()
    await slack.app.runner.deliverer.settle()  # the live question is posted, its ts kept


async def graded(slack: SlackAdapter, fake: FakeSlack) -> str:
    """The text of the grade the user got privately."""
    await slack.settled()
    replies = fake.called(
        "chat.postEphemeral",
        where=lambda c: c.args["user"] == USER and ("Correct" in str(c.args)),
    )
    assert replies, "the user got no grade"
    return str(replies[-1].args)


def stored(slack: SlackAdapter) -> tuple[AttemptRow, int, int]:
    """The one attempt, the live round's id and the personal quiz's position."""
    with slack.app.session_factory() as session:
        attempt = session.scalars(select(AttemptRow)).one()
    return attempt, session_of(slack, "live").id, session_of(slack, "personal").position


def assert_answered_the_live_round(slack: SlackAdapter) -> None:
    attempt, live_id, quiz_position = stored(slack)
    assert attempt.quiz_session_id == live_id and attempt.points > 0
    assert quiz_position == 0  # the personal quiz still waits on its first question


async def test_a_slash_answer_with_a_quiz_open_answers_the_channels_live_round(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await quiz_then_live_round(slack, fake_slack)
    await dispatch(slack, slash("/answer", live_answer(slack)))
    assert "Correct! +" in await graded(slack, fake_slack)
    assert_answered_the_live_round(slack)


async def test_a_reply_in_the_live_questions_thread_answers_the_live_round(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await quiz_then_live_round(slack, fake_slack)
    reply = message_event(
        live_answer(slack), thread_ts=live_post_ts(slack), parent_user_id=BOT_USER_ID
    )
    assert (await dispatch(slack, reply)).status == 200
    assert "Correct! +" in await graded(slack, fake_slack)
    assert_answered_the_live_round(slack)


async def test_a_mention_of_the_bot_in_the_channel_answers_the_live_round(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await quiz_then_live_round(slack, fake_slack)
    mention = message_event(f"<@{BOT_USER_ID}> {live_answer(slack)}", kind="app_mention")
    await dispatch(slack, mention)
    assert "Correct! +" in await graded(slack, fake_slack)
    assert_answered_the_live_round(slack)


async def test_the_live_questions_button_answers_the_live_round(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await quiz_then_live_round(slack, fake_slack)
    row = session_of(slack, "live")
    await dispatch(slack, click(f"live:{row.id}:0:{live_answer(slack)}"))
    assert "Correct! +" in await graded(slack, fake_slack)
    assert_answered_the_live_round(slack)


async def test_the_quizs_own_button_still_answers_the_quiz_during_a_live_round(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await quiz_then_live_round(slack, fake_slack)
    quiz, question = shown(slack, "personal")
    await dispatch(slack, click(f"quiz:{quiz.id}:0:{right_letter(question)}"))
    await graded(slack, fake_slack)
    attempt, live_id, quiz_position = stored(slack)
    assert attempt.quiz_session_id == quiz.id != live_id
    assert quiz_position == 1 and session_of(slack, "live").position == 0


async def test_a_dm_to_the_bot_answers_the_quiz_not_the_channels_live_round(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await quiz_then_live_round(slack, fake_slack)
    quiz, question = shown(slack, "personal")
    await dispatch(slack, message_event(right_letter(question), channel="D222"))
    await slack.settled()
    attempt, _live_id, quiz_position = stored(slack)
    assert attempt.quiz_session_id == quiz.id and quiz_position == 1
    assert session_of(slack, "live").position == 0
