"""Disputes on Slack through the real slack-bolt app: the grade's Dispute button and its
modal, the admins' queue and buttons, the user's DM; signed requests in, the fake Slack
Web API on 127.0.0.1 records what goes out."""

from __future__ import annotations

from sqlalchemy import select

from bot.adapters.slack import SlackAdapter
from bot.db.models import AttemptRow, DailyPromptRow, DisputeRow
from tests.adapters.slack.conftest import dispatch
from tests.adapters.slack.fake_slack import Call, FakeSlack
from tests.adapters.slack.payloads import USER, click, slash, submission
from tests.support import row_counts

ADMIN = "W999"


def text_of(call: Call) -> str:
    return str(call.args.get("text", ""))


async def ephemeral(fake: FakeSlack, count: int) -> Call:
    """The ``count``-th private reply (1-based)."""
    return (await fake.wait_for("chat.postEphemeral", count=count))[count - 1]


async def answer_wrong(slack: SlackAdapter, fake: FakeSlack) -> Call:
    """Post the daily question, click a wrong choice, and return the private grade."""
    await dispatch(slack, slash("/daily"))
    post = (await fake.wait_for("chat.postMessage"))[0]
    await slack.settled()
    with slack.app.session_factory() as session:
        question = slack.app.services.bank.get(
            session.scalars(select(DailyPromptRow.question_id)).one()
        )
    assert question is not None
    right = question.choices.index(question.correct[0])
    wrong = next(b for i, b in enumerate(post.buttons()) if i != right)
    await dispatch(slack, click(wrong["value"]))
    return await ephemeral(fake, 1)


async def file_dispute(slack: SlackAdapter, fake: FakeSlack, reason: str) -> None:
    grade = await answer_wrong(slack, fake)
    (button,) = [b for b in grade.buttons() if b["text"]["text"] == "Dispute"]
    await dispatch(slack, click(button["value"]))
    view = (await fake.wait_for("views.open"))[0].view()
    await dispatch(slack, submission(view, reason))
    assert "Dispute #1 filed" in text_of(await ephemeral(fake, 2))
    await slack.settled()


def dispute_rows(slack: SlackAdapter) -> list[DisputeRow]:
    with slack.app.session_factory() as session:
        return list(session.scalars(select(DisputeRow)))


async def test_the_grades_dispute_button_opens_a_modal_whose_reason_files_the_dispute(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    grade = await answer_wrong(slack, fake_slack)
    assert "Incorrect" in text_of(grade)
    assert [b["text"]["text"] for b in grade.buttons()] == ["Dispute"]
    await dispatch(slack, click(grade.buttons()[0]["value"]))
    view = (await fake_slack.wait_for("views.open"))[0].view()
    assert view["type"] == "modal"
    assert dispute_rows(slack) == []
    await dispatch(slack, submission(view, "my answer names the same thing"))
    filed = await ephemeral(fake_slack, 2)
    assert filed.args["user"] == USER and "Dispute #1 filed" in text_of(filed)
    await slack.settled()
    assert [(d.reason, d.status) for d in dispute_rows(slack)] == [
        ("my answer names the same thing", "open")
    ]


async def test_a_second_dispute_of_the_same_answer_is_refused_and_writes_nothing(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await file_dispute(slack, fake_slack, "first")
    before = row_counts(slack.app)
    await dispatch(slack, slash("/dispute", "second"))
    assert "You already disputed that answer" in text_of(await ephemeral(fake_slack, 3))
    await slack.settled()
    assert row_counts(slack.app) == before


async def test_members_who_are_not_admins_cannot_see_or_decide_disputes(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    await file_dispute(slack, fake_slack, "please")
    before = row_counts(slack.app)
    await dispatch(slack, slash("/studybot", "disputes"))
    await dispatch(slack, click("disputes:1:correct"))
    await dispatch(slack, slash("/studybot", "disputes accept 1"))
    replies = await fake_slack.wait_for("chat.postEphemeral", count=5)
    assert all("Only workspace admins can review disputes" in text_of(r) for r in replies[2:])
    await slack.settled()
    assert row_counts(slack.app) == before
    assert [d.status for d in dispute_rows(slack)] == ["open"]


async def test_an_admin_accepts_with_the_queues_button_and_the_user_gets_a_dm(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    fake_slack.users[ADMIN] = {"is_admin": True}
    await file_dispute(slack, fake_slack, "it is the same mechanism")
    await dispatch(slack, slash("/studybot", "disputes", user=ADMIN))
    head, card = await fake_slack.wait_for(
        "chat.postEphemeral", count=2, where=lambda c: c.args.get("user") == ADMIN
    )
    assert "1 open dispute" in text_of(head)
    shown = str(card.blocks())
    assert "Reason: it is the same mechanism" in shown and "Incorrect (0%)" in shown
    labels = {b["text"]["text"]: b["value"] for b in card.buttons()}
    assert list(labels) == ["Accept: correct", "Accept: partial", "Reject"]

    await dispatch(slack, click(labels["Accept: correct"], user=ADMIN))
    said = await fake_slack.wait_for(
        "chat.postEphemeral", count=3, where=lambda c: c.args.get("user") == ADMIN
    )
    assert "Dispute #1 (by Person W222) accepted" in text_of(said[2])
    await slack.settled()
    await slack.app.runner.deliverer.settle()
    opened = await fake_slack.wait_for("conversations.open")
    assert [c.args["users"] for c in opened] == [USER]
    (dm,) = await fake_slack.wait_for(
        "chat.postMessage", where=lambda c: c.args["channel"] == f"D{USER}"
    )
    assert "Your dispute #1 was accepted" in text_of(dm)
    with slack.app.session_factory() as session:
        attempt = session.scalars(select(AttemptRow)).one()
    assert (attempt.verdict, attempt.score) == ("correct", 1.0)
    question = slack.app.services.bank.get(attempt.question_id)
    assert question is not None
    assert attempt.points == 10 * question.difficulty  # the scored daily answer's points


async def test_an_admin_rejects_through_the_note_modal(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    fake_slack.users[ADMIN] = {"is_admin": True}
    await file_dispute(slack, fake_slack, "please")
    await dispatch(slack, click("disputes:1:reject", user=ADMIN))
    view = (await fake_slack.wait_for("views.open", count=2))[1].view()
    await dispatch(slack, submission(view, "the answer names another choice", user=ADMIN))
    said = await fake_slack.wait_for(
        "chat.postEphemeral", count=1, where=lambda c: c.args.get("user") == ADMIN
    )
    assert "Dispute #1 (by Person W222) rejected" in text_of(said[0])
    await slack.settled()
    (row,) = dispute_rows(slack)
    assert (row.status, row.note) == ("rejected", "the answer names another choice")
