"""The answer router on Slack: a slash command /answer in a channel where a live round runs
answers the live round, even from someone with a personal quiz open."""

from __future__ import annotations

import json

from sqlalchemy import select

from bot.adapters.slack import SlackAdapter
from bot.db.models import AttemptRow, QuizSessionRow
from tests.adapters.slack.conftest import dispatch
from tests.adapters.slack.fake_slack import FakeSlack
from tests.adapters.slack.payloads import USER, slash

OTHER = "W333"


def live_answer(slack: SlackAdapter) -> str:
    """The right letter of the live round's current question."""
    with slack.app.session_factory() as session:
        row = session.scalars(select(QuizSessionRow).where(QuizSessionRow.mode == "live")).one()
    question = slack.app.services.bank.get(row.question_ids[row.position])
    assert question is not None
    return "ABCDEFGH"[question.choices.index(question.correct[0])]


async def test_a_slash_answer_with_a_quiz_open_answers_the_channels_live_round(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await dispatch(slack, slash("/quiz", "2"))  # the user's personal quiz
    await dispatch(slack, slash("/quiz", "live 2", user=OTHER))  # a live round, same channel
    await slack.settled()
    await slack.app.runner.deliverer.settle()
    await dispatch(slack, slash("/answer", live_answer(slack)))
    await slack.settled()
    replies = fake_slack.called(
        "chat.postEphemeral", where=lambda c: c.args["user"] == USER and "Correct!" in str(c.args)
    )
    assert replies, "the answer was not graded as the live round's"
    assert "+" in json.dumps(replies[-1].blocks() or replies[-1].args.get("text", ""))
    with slack.app.session_factory() as session:
        attempt = session.scalars(select(AttemptRow)).one()
        live = session.scalars(select(QuizSessionRow).where(QuizSessionRow.mode == "live")).one()
        personal = session.scalars(
            select(QuizSessionRow).where(QuizSessionRow.mode == "personal")
        ).one()
    assert attempt.quiz_session_id == live.id and attempt.points > 0
    assert personal.position == 0  # the personal quiz still waits on its first question
