"""The answer router on Discord (the real client on the fake gateway), as a member with a
personal quiz open meets a live round in the channel: /answer there, a reply to the live
question and a reply in its thread answer the live round, and so do its buttons; the quiz's
own buttons answer the quiz."""

from __future__ import annotations

from sqlalchemy import select

from bot.bootstrap import App
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import Question
from bot.core.display import displayed, quiz_seed
from bot.db.models import AttemptRow, OutboxRow, QuizSessionRow
from tests.adapters.discord import payloads as p
from tests.adapters.discord.conftest import bank_of, running_adapter
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.support import right_letter

INTEGER = 4


def session_of(app: App, mode: str) -> QuizSessionRow:
    with app.session_factory() as session:
        return session.scalars(select(QuizSessionRow).where(QuizSessionRow.mode == mode)).one()


def shown(app: App, mode: str) -> tuple[QuizSessionRow, Question]:
    """The session of ``mode`` and its current question, choices in their shown order."""
    row = session_of(app, mode)
    question = displayed(app.services.bank.get(row.question_ids[row.position]), quiz_seed(row.id))
    assert question is not None
    return row, question


def live_post_id(app: App) -> str:
    """The Discord id of the live round's first question, posted in the channel."""
    row = session_of(app, "live")
    with app.session_factory() as session:
        ref = session.scalar(
            select(OutboxRow.message_ref).where(OutboxRow.key == f"live:{row.id}:0:ask")
        )
    assert ref is not None
    return ref


async def quiz_then_live_round(app: App, fake: FakeDiscord) -> None:
    """The member opens a personal quiz in the channel; another starts a live round there."""
    quiz = p.command("quiz", [p.option("count", 2, INTEGER)])
    await fake.dispatch("INTERACTION_CREATE", quiz)
    await fake.wait_call("POST", rf"^/interactions/{quiz['id']}/")
    live = p.command(
        "quiz",
        [p.option("mode", "live"), p.option("count", 2, INTEGER)],
        user_id=p.OTHER_USER_ID,
        user_name="Nadia",
    )
    await fake.dispatch("INTERACTION_CREATE", live)
    await fake.wait_call("POST", rf"^/channels/{p.CHANNEL_ID}/messages$")
    await app.runner.deliverer.settle()  # the live question is posted and its id kept


def assert_answered_the_live_round(app: App) -> None:
    with app.session_factory() as session:
        attempt = session.scalars(select(AttemptRow)).one()
    assert attempt.quiz_session_id == session_of(app, "live").id and attempt.points > 0
    assert session_of(app, "personal").position == 0  # the quiz still waits on question 1


async def dm_text(fake: FakeDiscord) -> str:
    dm = await fake.wait_call("POST", rf"^/channels/{p.dm_channel_id(p.USER_ID)}/messages$")
    return str(dm.json)


async def test_a_slash_answer_with_a_quiz_open_answers_the_channels_live_round(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    bank = bank_of(sample_bank, "choice")
    async with running_adapter(db_url, clock, bank, fake, signing_key) as (app, _):
        await quiz_then_live_round(app, fake)
        answer = p.command("answer", [p.option("text", right_letter(shown(app, "live")[1]))])
        await fake.dispatch("INTERACTION_CREATE", answer)
        reply = await fake.wait_call("POST", rf"^/interactions/{answer['id']}/")
        assert "Correct! +" in str(reply.json)
        assert_answered_the_live_round(app)


async def test_a_reply_to_the_live_question_answers_the_live_round(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    bank = bank_of(sample_bank, "choice")
    async with running_adapter(
        db_url, clock, bank, fake, signing_key, studybot_discord_message_content=True
    ) as (app, _):
        await quiz_then_live_round(app, fake)
        post = p.message(live_post_id(app), p.CHANNEL_ID)
        letter = right_letter(shown(app, "live")[1])
        await fake.dispatch("MESSAGE_CREATE", p.user_message(p.CHANNEL_ID, letter, reference=post))
        assert "Correct! +" in await dm_text(fake)
        assert_answered_the_live_round(app)


async def test_a_reply_in_the_live_questions_thread_answers_the_live_round(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    bank = bank_of(sample_bank, "choice")
    async with running_adapter(
        db_url, clock, bank, fake, signing_key, studybot_discord_message_content=True
    ) as (app, _):
        await quiz_then_live_round(app, fake)
        post_id = live_post_id(app)
        await fake.dispatch("THREAD_CREATE", {**p.thread(post_id), "newly_created": True})
        letter = right_letter(shown(app, "live")[1])
        await fake.dispatch("MESSAGE_CREATE", p.user_message(post_id, letter))
        assert "Correct! +" in await dm_text(fake)
        assert_answered_the_live_round(app)


async def test_the_live_button_answers_the_round_and_the_quiz_button_the_quiz(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    bank = bank_of(sample_bank, "choice")
    async with running_adapter(db_url, clock, bank, fake, signing_key) as (app, _):
        await quiz_then_live_round(app, fake)
        quiz, question = shown(app, "personal")
        own = p.button(f"quiz:{quiz.id}:0:{right_letter(question)}", p.snowflake())
        await fake.dispatch("INTERACTION_CREATE", own)
        await fake.wait_call("POST", rf"^/interactions/{own['id']}/")
        assert session_of(app, "personal").position == 1  # the quiz's button: the quiz
        live, live_question = shown(app, "live")
        button = p.button(f"live:{live.id}:0:{right_letter(live_question)}", live_post_id(app))
        await fake.dispatch("INTERACTION_CREATE", button)
        reply = await fake.wait_call("POST", rf"^/interactions/{button['id']}/")
        assert "Correct! +" in str(reply.json)
        with app.session_factory() as session:
            sessions = list(session.scalars(select(AttemptRow.quiz_session_id)))
        assert sorted(sessions) == sorted([quiz.id, live.id])
        assert session_of(app, "live").position == 1  # the live button: the live round
