"""The real discord.py client connected to a fake Discord gateway and REST API on loopback."""

from __future__ import annotations

import asyncio
import threading

from sqlalchemy import select

from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.display import daily_seed, displayed
from bot.db.models import AttemptRow, DailyPromptRow, OutboxRow
from tests.adapters.discord import payloads as p
from tests.adapters.discord.conftest import bank_of, running_adapter
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.support import right_letter


def _custom_ids(components: list[dict]) -> list[str]:
    return [c["custom_id"] for row in components for c in row["components"]]


async def test_the_client_identifies_with_only_the_intents_it_needs_and_registers_every_command(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(db_url, clock, sample_bank, fake, signing_key) as (_, adapter):
        assert fake.identify is not None
        # guilds (1 << 0) and guild messages (1 << 9); no privileged intent by default
        assert fake.identify["intents"] == (1 << 0) | (1 << 9)
        assert adapter.client.user is not None and str(adapter.client.user.id) == p.BOT_ID
        names = {c.name for c in adapter.client.tree.get_commands()}
        assert {
            "daily",
            "answer",
            "quiz",
            "streak",
            "leaderboard",
            "team",
            "mock",
            "tz",
            "help",
            "studybot",
        } <= names
        assert not {"as", "advance"} & names


async def test_message_content_intent_is_requested_only_when_configured(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(
        db_url, clock, sample_bank, fake, signing_key, studybot_discord_message_content=True
    ):
        assert fake.identify is not None
        assert fake.identify["intents"] & (1 << 15)


async def test_daily_command_posts_the_question_with_buttons_and_a_click_grades_it_privately(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    bank = bank_of(sample_bank, "choice")
    question = bank.all()[0]
    async with running_adapter(db_url, clock, bank, fake, signing_key) as (app, _):
        command = p.command("daily")
        await fake.dispatch("INTERACTION_CREATE", command)

        post = await fake.wait_call("POST", rf"^/channels/{p.CHANNEL_ID}/messages$")
        await app.runner.deliverer.settle()  # the post's Discord id is stored
        assert post.json["embeds"][0]["title"].startswith("Daily question")
        ids = _custom_ids(post.json["components"])
        assert [i.rsplit(":", 1)[1] for i in ids] == ["A", "B", "C", "D"][: len(question.choices)]
        # nothing private to say: the deferred reply is removed
        await fake.wait_call("DELETE", rf"^/webhooks/{p.APP_ID}/{command['token']}/messages/")

        message_id = fake.first_with_buttons()
        right = right_letter(displayed(question, daily_seed(1)))  # as the post shows it
        click = p.button(next(i for i in ids if i.endswith(f":{right}")), message_id)
        await fake.dispatch("INTERACTION_CREATE", click)
        callback = await fake.wait_call("POST", rf"^/interactions/{click['id']}/")
        with app.session_factory() as session:
            prompt = session.scalars(select(DailyPromptRow)).one()
            post_key = f"daily:{prompt.id}:post"
            post_row = select(OutboxRow.message_ref).where(OutboxRow.key == post_key)
            assert session.scalar(post_row) == message_id  # thread replies to it are answers
            attempt = session.scalars(select(AttemptRow)).one()
            assert attempt.scored_prompt_id == prompt.id and attempt.score == 1.0

    assert callback.json["type"] == 4
    assert callback.json["data"]["flags"] & 64  # only the clicker sees the grade
    assert "Correct" in callback.json["data"]["embeds"][0]["description"]


async def test_answer_button_opens_a_modal_first_and_its_submission_is_graded(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    bank = bank_of(sample_bank, "numeric")
    async with running_adapter(db_url, clock, bank, fake, signing_key) as (app, _):
        await fake.dispatch("INTERACTION_CREATE", p.command("daily"))
        post = await fake.wait_call("POST", rf"^/channels/{p.CHANNEL_ID}/messages$")
        (form_button,) = _custom_ids(post.json["components"])
        assert form_button.endswith(":form")

        click = p.button(form_button, fake.first_with_buttons())
        await fake.dispatch("INTERACTION_CREATE", click)
        opened = await fake.wait_call("POST", rf"^/interactions/{click['id']}/")
        assert opened.json["type"] == 9  # the modal is the first response, never after a defer
        modal = opened.json["data"]
        text_input = modal["components"][0]["components"][0]
        assert text_input["max_length"] == 4000

        submit = p.modal_submit(modal["custom_id"], "7", input_id=text_input["custom_id"])
        await fake.dispatch("INTERACTION_CREATE", submit)
        graded = await fake.wait_call("POST", rf"^/interactions/{submit['id']}/")
        with app.session_factory() as session:
            assert session.scalars(select(AttemptRow.answer)).one() == "7"

    assert graded.json["type"] == 4 and graded.json["data"]["flags"] & 64
    assert "Correct" in graded.json["data"]["embeds"][0]["description"]


async def test_slow_work_is_deferred_then_the_reply_replaces_the_thinking_message(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(
        db_url, clock, sample_bank, fake, signing_key, studybot_discord_defer_after=0
    ):
        command = p.command("tz", [{"type": 3, "name": "zone", "value": "Europe/Berlin"}])
        await fake.dispatch("INTERACTION_CREATE", command)
        deferred = await fake.wait_call("POST", rf"^/interactions/{command['id']}/")
        edited = await fake.wait_call(
            "PATCH", rf"^/webhooks/{p.APP_ID}/{command['token']}/messages/@original$"
        )
    assert deferred.json == {"type": 5, "data": {"flags": 64}}
    assert "Europe/Berlin" in edited.json["content"]


async def test_admin_rights_come_from_manage_server(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    seen: list[bool] = []
    async with running_adapter(db_url, clock, sample_bank, fake, signing_key) as (app, _):
        handle = app.bot.handle

        def spy(event):  # type: ignore[no-untyped-def]
            seen.append(event.is_admin)
            return handle(event)

        app.bot.handle = spy  # type: ignore[method-assign]
        for permissions in (p.ADMIN_PERMISSIONS, p.MEMBER_PERMISSIONS):
            command = p.command("help", permissions=permissions)
            await fake.dispatch("INTERACTION_CREATE", command)
            await fake.wait_call("POST", rf"^/interactions/{command['id']}/")
    assert seen == [True, False]


async def test_a_reply_in_the_daily_posts_thread_is_graded_and_answered_by_dm(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    bank = bank_of(sample_bank, "numeric")
    async with running_adapter(
        db_url, clock, bank, fake, signing_key, studybot_discord_message_content=True
    ) as (app, _):
        await fake.dispatch("INTERACTION_CREATE", p.command("daily"))
        await fake.wait_call("POST", rf"^/channels/{p.CHANNEL_ID}/messages$")
        post_id = fake.first_with_buttons()
        # a member opens a thread on the post (the thread has the post's id) and answers in it
        await fake.dispatch("THREAD_CREATE", {**p.thread(post_id), "newly_created": True})
        await fake.dispatch("MESSAGE_CREATE", p.user_message(post_id, "7 instances"))

        dm = await fake.wait_call("POST", rf"^/channels/{p.dm_channel_id(p.USER_ID)}/messages$")
        with app.session_factory() as session:
            assert session.scalars(select(AttemptRow.answer)).one() == "7 instances"
    assert "Correct" in dm.json["embeds"][0]["description"]


async def test_messages_that_do_not_answer_a_bot_post_are_ignored(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(
        db_url, clock, sample_bank, fake, signing_key, studybot_discord_message_content=True
    ) as (app, _):
        other = p.message(p.snowflake(), p.CHANNEL_ID, author=p.user(p.OTHER_USER_ID))
        await fake.dispatch("MESSAGE_CREATE", p.user_message(p.CHANNEL_ID, "just chatting"))
        await fake.dispatch(
            "MESSAGE_CREATE", p.user_message(p.CHANNEL_ID, "a reply to a person", reference=other)
        )
        # a command afterwards is answered, so the two messages before it were processed
        command = p.command("help")
        await fake.dispatch("INTERACTION_CREATE", command)
        await fake.wait_call("POST", rf"^/interactions/{command['id']}/")
        with app.session_factory() as session:
            assert session.scalars(select(AttemptRow)).all() == []
    assert not [c for c in fake.calls if c.path == "/users/@me/channels"]


async def test_autosharded_client_connects_when_configured(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(
        db_url, clock, sample_bank, fake, signing_key, studybot_discord_sharded=True
    ) as (_, adapter):
        assert type(adapter.client).__name__ == "ShardedStudybotClient"
        assert fake.identify is not None and fake.identify["shard"] == [0, 1]
        assert [c for c in fake.calls if c.path == "/gateway/bot"]


async def test_stopping_answers_the_interaction_in_flight_before_disconnecting(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    entered, release = threading.Event(), threading.Event()
    answered_before_close: list[bool] = []
    command = p.command("help")
    async with running_adapter(db_url, clock, sample_bank, fake, signing_key) as (app, adapter):
        handle = app.bot.handle

        def held(event):  # type: ignore[no-untyped-def]
            entered.set()
            release.wait(timeout=10)
            return handle(event)

        app.bot.handle = held  # type: ignore[method-assign]
        close = adapter.client.close

        async def recording_close() -> None:
            answered_before_close.append(bool(fake.callbacks()))
            await close()

        adapter.client.close = recording_close  # type: ignore[method-assign]
        await fake.dispatch("INTERACTION_CREATE", command)
        assert await asyncio.to_thread(entered.wait, 10)
        stopping = asyncio.create_task(adapter.stop())
        # released only once stop() has begun, while the command is still being handled
        asyncio.get_running_loop().call_soon(release.set)
        await stopping
        checked_out = app.engine.pool.checkedout()
    assert answered_before_close[0] is True
    assert fake.callbacks()[0].path == f"/interactions/{command['id']}/{command['token']}/callback"
    assert checked_out == 0


async def test_an_interaction_dispatched_twice_is_answered_once(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(db_url, clock, sample_bank, fake, signing_key) as (_, adapter):
        command = p.command("tz", [{"type": 3, "name": "zone", "value": "Asia/Tokyo"}])
        await fake.dispatch("INTERACTION_CREATE", command)
        await fake.dispatch("INTERACTION_CREATE", command)  # replayed, as after a RESUME
        await fake.wait_call("POST", rf"^/interactions/{command['id']}/")
        later = p.command("streak")  # a later one answered: the replay was dropped, not slow
        await fake.dispatch("INTERACTION_CREATE", later)
        await fake.wait_call("POST", rf"^/interactions/{later['id']}/")
        await adapter.client.handler.drain()
    answered = [c for c in fake.callbacks() if f"/interactions/{command['id']}/" in c.path]
    assert len(answered) == 1
