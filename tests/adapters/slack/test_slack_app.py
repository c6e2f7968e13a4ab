"""The Slack adapter through the real slack-bolt app: signed requests in, recorded Web API
calls out (the fake Slack on 127.0.0.1)."""

from __future__ import annotations

import json
import time

import pytest
from sqlalchemy import select

from bot.adapters.slack import SlackAdapter
from bot.core.commands import COMMANDS
from bot.core.content import Question
from bot.core.display import daily_seed, displayed
from bot.db.models import AttemptRow, DailyPromptRow, OutboxRow, UserRow
from tests.adapters.slack.conftest import AdapterFactory, dispatch
from tests.adapters.slack.fake_slack import BOT_USER_ID, Call, FakeSlack
from tests.adapters.slack.payloads import (
    CHANNEL,
    USER,
    click,
    event_callback,
    home_opened,
    message_event,
    slash,
    submission,
    trigger_of,
)
from tests.support import right_letter

REPLIES = ("chat.postMessage", "chat.postEphemeral")
SLACK_COMMANDS = sorted(name for name, spec in COMMANDS.items() if not spec.console_only)


def text_of(call: Call) -> str:
    return str(call.args.get("text", ""))


async def answers(slack: SlackAdapter) -> list[str]:
    """The answers stored, once the adapter has finished what it took."""
    await slack.settled()
    with slack.app.session_factory() as session:
        return list(session.scalars(select(AttemptRow.answer).order_by(AttemptRow.id)))


async def post_daily(slack: SlackAdapter, fake: FakeSlack) -> Call:
    response = await dispatch(slack, slash("/daily"))
    assert response.status == 200
    post = (await fake.wait_for("chat.postMessage"))[0]
    await slack.settled()
    await slack.app.runner.deliverer.settle()  # the post's Slack id is stored
    return post


def shown_daily(slack: SlackAdapter) -> Question:
    """The channel's daily question with its choices in the post's displayed order."""
    with slack.app.session_factory() as session:
        prompt = session.scalars(select(DailyPromptRow)).one()
        question_id, seed = prompt.question_id, daily_seed(prompt.id)
    question = displayed(slack.app.services.bank.get(question_id), seed)
    assert question is not None
    return question


# --- slash commands -------------------------------------------------------------------------


@pytest.mark.parametrize("name", SLACK_COMMANDS)
async def test_every_slash_command_is_acked_at_once_and_answered_in_its_channel(
    slack: SlackAdapter, fake_slack: FakeSlack, name: str
) -> None:
    started = time.perf_counter()
    response = await dispatch(slack, slash(f"/{name}"))
    ack_seconds = time.perf_counter() - started
    assert response.status == 200
    assert ack_seconds < 3
    reply = (await fake_slack.wait_for(REPLIES))[0]
    assert reply.args["channel"] == CHANNEL
    if reply.method == "chat.postEphemeral":
        assert reply.args["user"] == USER
    assert text_of(reply)


async def test_help_lists_the_commands_privately(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await dispatch(slack, slash("/help"))
    reply = (await fake_slack.wait_for("chat.postEphemeral"))[0]
    assert "/daily" in text_of(reply)
    assert "/advance" not in text_of(reply)  # console only


async def test_a_command_prefix_names_every_slash_command(
    make_adapter: AdapterFactory, fake_slack: FakeSlack
) -> None:
    slack = make_adapter(studybot_slack_command_prefix="sb-")
    await dispatch(slack, slash("/sb-tz"))
    reply = (await fake_slack.wait_for("chat.postEphemeral"))[0]
    assert "Your time zone is Europe/Berlin" in text_of(reply)


async def test_the_users_slack_time_zone_is_kept_from_users_info(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    fake_slack.users[USER] = {"tz": "Asia/Tokyo"}
    await dispatch(slack, slash("/tz"))
    reply = (await fake_slack.wait_for("chat.postEphemeral"))[0]
    assert "Asia/Tokyo" in text_of(reply)
    await slack.settled()
    with slack.app.session_factory() as session:
        assert session.scalar(select(UserRow.timezone).where(UserRow.external_id == USER)) == (
            "Asia/Tokyo"
        )


async def test_command_arguments_arrive_unescaped(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await post_daily(slack, fake_slack)
    await dispatch(slack, slash("/answer", "B &amp; &lt;C&gt;"))
    await fake_slack.wait_for("chat.postEphemeral")
    assert await answers(slack) == ["B & <C>"]


# --- buttons and modals ---------------------------------------------------------------------


async def test_clicking_a_choice_button_grades_the_answer_privately(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    post = await post_daily(slack, fake_slack)
    buttons = post.buttons()
    assert [b["text"]["text"] for b in buttons][:2] == ["A", "B"]
    question = shown_daily(slack)
    right = question.choices.index(question.correct[0]) == 1  # B, as the post shows it
    response = await dispatch(slack, click(buttons[1]["value"]))
    assert response.status == 200
    grade = (await fake_slack.wait_for("chat.postEphemeral"))[0]
    assert grade.args["user"] == USER
    assert grade.args["channel"] == CHANNEL
    assert ("✅ Correct (100%)" if right else "❌ Incorrect (0%)") in text_of(grade)
    assert await answers(slack) == ["B"]


async def test_the_answer_button_opens_a_modal_whose_submission_is_graded(
    make_adapter: AdapterFactory, fake_slack: FakeSlack
) -> None:
    slack = make_adapter("numeric")
    post = await post_daily(slack, fake_slack)
    (answer_button,) = post.buttons()
    assert answer_button["text"]["text"] == "Answer"
    clicked = click(answer_button["value"])
    await dispatch(slack, clicked)
    opened = (await fake_slack.wait_for("views.open"))[0]
    assert opened.args["trigger_id"] == trigger_of(clicked)
    view = opened.view()
    assert view["type"] == "modal"
    assert view["blocks"][0]["element"]["type"] == "plain_text_input"
    assert fake_slack.called("chat.postEphemeral") == []

    response = await dispatch(slack, submission(view, "7 instances"))
    assert response.status == 200
    grade = (await fake_slack.wait_for("chat.postEphemeral"))[0]
    assert grade.args["channel"] == CHANNEL
    assert grade.args["user"] == USER
    assert await answers(slack) == ["7 instances"]


async def test_a_button_of_a_question_that_is_gone_gets_a_kind_private_reply(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await dispatch(slack, click("daily:999:A"))
    await dispatch(slack, click("no-such-action"))
    replies = await fake_slack.wait_for("chat.postEphemeral", count=2)
    texts = sorted(text_of(r) for r in replies)
    assert texts == ["That button is no longer valid.", "That question is no longer open."]
    assert await answers(slack) == []


async def test_a_click_outside_a_channel_is_answered_in_the_users_dm(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await dispatch(slack, click("home", channel=None))
    await fake_slack.wait_for("conversations.open")
    reply = (await fake_slack.wait_for(REPLIES))[0]
    assert reply.args["channel"] == f"D{USER}"


# --- messages in threads ----------------------------------------------------------------------


async def test_a_reply_in_the_daily_posts_thread_is_graded_as_an_answer(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    post = await post_daily(slack, fake_slack)
    post_ts = "1700000000.000001"
    with slack.app.session_factory() as session:
        post_row = select(OutboxRow.message_ref).where(OutboxRow.key == "daily:1:post")
        assert session.scalar(post_row) == f"{CHANNEL}:{post_ts}"
    assert post.args["channel"] == CHANNEL
    body = message_event("B", thread_ts=post_ts, parent_user_id=BOT_USER_ID)
    assert (await dispatch(slack, body)).status == 200
    grade = (await fake_slack.wait_for("chat.postEphemeral"))[0]
    assert grade.args["user"] == USER
    assert await answers(slack) == ["B"]


async def test_a_mention_that_also_arrives_as_a_message_is_answered_once(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await post_daily(slack, fake_slack)
    thread = {"thread_ts": "1700000000.000001", "parent_user_id": BOT_USER_ID}
    text = f"<@{BOT_USER_ID}> B"
    await dispatch(slack, message_event(text, kind="app_mention", event_id="Ev1", **thread))
    await dispatch(slack, message_event(text, kind="message", event_id="Ev2", **thread))
    await fake_slack.wait_for("chat.postEphemeral")
    # a later message proves the duplicate was skipped, not merely slow
    await dispatch(slack, message_event("C", ts="1700000300.000100", event_id="Ev3", **thread))
    await fake_slack.wait_for("chat.postEphemeral", count=2)
    assert await answers(slack) == ["B", "C"]


async def test_messages_not_addressed_to_the_bot_are_ignored(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await post_daily(slack, fake_slack)
    ignored = [
        message_event("A"),  # top-level chatter
        message_event("A", thread_ts="1690000000.000001", parent_user_id="W999", ts="17.1"),
        event_callback("event_callback_message_bot_message.json", text="A", channel=CHANNEL),
        event_callback("event_callback_message_changed.json"),
        message_event(f"<@{BOT_USER_ID}>", kind="app_mention", ts="17.2"),  # nothing said
    ]
    for body in ignored:
        assert (await dispatch(slack, body)).status == 200
    control = message_event(
        "D", thread_ts="1700000000.000001", parent_user_id=BOT_USER_ID, ts="17.3"
    )
    await dispatch(slack, control)
    await fake_slack.wait_for("chat.postEphemeral")
    assert await answers(slack) == ["D"]


async def test_a_thread_broadcast_reply_to_the_bots_post_counts(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await post_daily(slack, fake_slack)
    body = event_callback(
        "event_callback_message_thread_broadcast.json",
        text="B",
        user=USER,
        channel=CHANNEL,
        thread_ts="1700000000.000001",
        root={"user": BOT_USER_ID, "ts": "1700000000.000001"},
    )
    await dispatch(slack, body)
    await fake_slack.wait_for("chat.postEphemeral")
    assert await answers(slack) == ["B"]


# --- App Home ---------------------------------------------------------------------------------


async def test_app_home_shows_the_users_own_progress(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await dispatch(slack, home_opened())
    first = (await fake_slack.wait_for("views.publish"))[0]
    assert first.args["user_id"] == USER
    assert first.view()["type"] == "home"
    assert "none yet" in json.dumps(first.view())

    await post_daily(slack, fake_slack)
    await dispatch(slack, slash("/answer", right_letter(shown_daily(slack))))
    await fake_slack.wait_for("chat.postEphemeral")
    await dispatch(slack, home_opened())
    second = (await fake_slack.wait_for("views.publish", count=2))[1]
    fields = [f["text"] for b in second.view()["blocks"] for f in b.get("fields", [])]
    assert "*Answers*\n1" in fields
    assert any(f.startswith("*Points*\n") for f in fields)


async def test_the_messages_tab_does_not_publish_a_home(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await dispatch(slack, home_opened(tab="messages"))
    await dispatch(slack, home_opened())
    assert len(await fake_slack.wait_for("views.publish")) == 1


# --- rate limits ------------------------------------------------------------------------------


async def test_a_reply_waits_out_a_429_and_is_sent(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    fake_slack.rate_limit("chat.postEphemeral", retry_after=0)
    await dispatch(slack, slash("/help"))
    calls = await fake_slack.wait_for("chat.postEphemeral", count=2)
    assert len(calls) == 2


async def test_a_private_reply_where_the_bot_is_not_a_member_goes_through_response_url(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    fake_slack.fail("chat.postEphemeral", "channel_not_found")
    await dispatch(slack, slash("/help", response_url=fake_slack.hook_url()))
    hook = (await fake_slack.wait_for("response_url"))[0]
    assert hook.args["response_type"] == "ephemeral"
    assert "/daily" in hook.args["text"]


# --- signatures -------------------------------------------------------------------------------


async def test_a_forged_request_is_refused_and_does_nothing(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    response = await dispatch(slack, slash("/daily"), secret="not-the-secret")
    assert response.status == 401
    old = int(time.time()) - 600
    response = await dispatch(slack, slash("/daily"), timestamp=old)
    assert response.status == 401
    assert fake_slack.calls == []


async def test_slacks_url_verification_gets_its_challenge_back(slack: SlackAdapter) -> None:
    body = json.dumps({"token": "t", "challenge": "abc123", "type": "url_verification"})
    response = await dispatch(slack, body)
    assert response.status == 200
    assert json.loads(response.body)["challenge"] == "abc123"


async def test_away_as_a_slash_command_adds_a_period_and_bad_dates_add_nothing(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    from bot.db.models import AwayPeriodRow

    await dispatch(slack, slash("/away", "2026-12-20 2027-01-03"))
    reply = (await fake_slack.wait_for(REPLIES))[0]
    assert "Time away #1: Sun 20 Dec 2026 to Sun 03 Jan 2027, 15 days" in text_of(reply)
    await dispatch(slack, slash("/away", "someday soon"))
    calls = await fake_slack.wait_for(REPLIES, count=2)
    assert "'someday' is not a date" in text_of(calls[-1])
    await slack.settled()
    with slack.app.session_factory() as session:
        rows = session.scalars(select(AwayPeriodRow)).all()
    assert [(str(r.first_day), str(r.last_day)) for r in rows] == [("2026-12-20", "2027-01-03")]
