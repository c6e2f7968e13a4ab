"""Disputes on Discord through the HTTP interactions endpoint: signed interactions in, the
interaction responses and the fake Discord REST API on 127.0.0.1 out."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.db.models import AttemptRow, DisputeRow
from tests.adapters.discord import payloads as p
from tests.adapters.discord.conftest import bank_of
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.adapters.discord.test_http_interactions import Endpoint, endpoint
from tests.support import row_counts

ADMIN = p.OTHER_USER_ID


def buttons(response: dict[str, Any]) -> list[dict[str, Any]]:
    rows = response["data"].get("components") or []
    return [c for row in rows for c in row["components"]]


def text(response: dict[str, Any]) -> str:
    data = response["data"]
    embeds = data.get("embeds") or []
    return " ".join([data.get("content") or "", *(str(e) for e in embeds)])


async def answer_wrong(ep: Endpoint, fake: FakeDiscord, bank: QuestionBank) -> dict[str, Any]:
    await ep.post(p.command("daily"))
    post = await fake.wait_call("POST", rf"^/channels/{p.CHANNEL_ID}/messages$")
    question = bank.all()[0]
    right = "ABCD"[question.choices.index(question.correct[0])]
    wrong = next(
        b
        for row in post.json["components"]
        for b in row["components"]
        if not b["custom_id"].endswith(f":{right}")
    )
    status, graded = await ep.post(p.button(wrong["custom_id"], fake.first_with_buttons()))
    assert status == 200 and graded["type"] == 4
    return dict(graded)


async def file_dispute(ep: Endpoint, fake: FakeDiscord, bank: QuestionBank, reason: str) -> None:
    await dispute_grade(ep, fake, await answer_wrong(ep, fake, bank), reason)


async def dispute_grade(
    ep: Endpoint, fake: FakeDiscord, graded: dict[str, Any], reason: str
) -> None:
    """Press the grade's Dispute button and submit ``reason`` in the modal it opens."""
    (dispute,) = [b for b in buttons(graded) if b["label"] == "Dispute"]
    status, modal = await ep.post(p.button(dispute["custom_id"], fake.first_with_buttons()))
    assert status == 200 and modal["type"] == 9
    text_input = modal["data"]["components"][0]["components"][0]
    submit = p.modal_submit(modal["data"]["custom_id"], reason, input_id=text_input["custom_id"])
    _, filed = await ep.post(submit)
    assert filed["type"] == 4 and filed["data"]["flags"] == 64
    assert "Dispute #1 filed" in text(filed)


def disputes(ep: Endpoint) -> list[DisputeRow]:
    with ep.app.session_factory() as session:
        return list(session.scalars(select(DisputeRow)))


async def test_the_grades_dispute_button_opens_a_modal_and_the_reason_files_it(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    bank = bank_of(sample_bank, "choice")
    async with endpoint(db_url, clock, bank, fake, signing_key) as ep:
        graded = await answer_wrong(ep, fake, bank)
        assert "Incorrect" in text(graded)
        assert [b["label"] for b in buttons(graded)] == ["Dispute"]
        await dispute_grade(ep, fake, graded, "same idea, other words")
        assert [(d.reason, d.status) for d in disputes(ep)] == [("same idea, other words", "open")]
        before = row_counts(ep.app)
        status, again = await ep.post(p.command("dispute", [p.option("reason", "again")]))
        assert status == 200 and "You already disputed that answer" in text(again)
        assert row_counts(ep.app) == before


async def test_slash_dispute_without_a_graded_answer_is_a_friendly_error(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with endpoint(db_url, clock, sample_bank, fake, signing_key) as ep:
        await ep.post(p.command("help"))  # the user exists from here on
        before = row_counts(ep.app)
        status, reply = await ep.post(p.command("dispute", [p.option("reason", "wrong!")]))
        assert status == 200 and reply["data"]["flags"] == 64
        assert "You have no graded answer to dispute yet" in text(reply)
        assert row_counts(ep.app) == before


async def test_a_member_without_manage_server_cannot_decide(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    bank = bank_of(sample_bank, "choice")
    async with endpoint(db_url, clock, bank, fake, signing_key) as ep:
        await file_dispute(ep, fake, bank, "please")
        before = row_counts(ep.app)
        _, listed = await ep.post(
            p.command("studybot", [p.option("arguments", "disputes")], user_id=ADMIN)
        )
        _, clicked = await ep.post(
            p.button("disputes:1:correct", fake.first_with_buttons(), user_id=ADMIN)
        )
        for reply in (listed, clicked):
            assert "Only workspace admins can review disputes" in text(reply)
        assert row_counts(ep.app) == before


async def test_an_admin_accepts_by_command_the_attempt_is_regraded_and_the_user_gets_a_dm(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    bank = bank_of(sample_bank, "choice")
    async with endpoint(db_url, clock, bank, fake, signing_key) as ep:
        await file_dispute(ep, fake, bank, "it is the same")
        _, listed = await ep.post(
            p.command(
                "studybot",
                [p.option("arguments", "disputes")],
                user_id=ADMIN,
                permissions=p.ADMIN_PERMISSIONS,
            )
        )
        assert "1 open dispute" in text(listed)
        _, accepted = await ep.post(
            p.button(
                "disputes:1:partial",
                fake.first_with_buttons(),
                user_id=ADMIN,
                permissions=p.ADMIN_PERMISSIONS,
            )
        )
        assert "Dispute #1 (by Mason) accepted: the answer is now 🟡 Partial (50%)" in text(
            accepted
        )
        await ep.app.runner.deliverer.settle()
        dm = await fake.wait_call("POST", r"^/users/@me/channels$")
        assert str(dm.json["recipient_id"]) == p.USER_ID
        told = await fake.wait_call("POST", rf"^/channels/{p.dm_channel_id(p.USER_ID)}/messages$")
        assert "Your dispute #1 was accepted" in str(told.json)
        with ep.app.session_factory() as session:
            attempt = session.scalars(select(AttemptRow)).one()
        assert (attempt.verdict, attempt.score) == ("partial", 0.5)
        assert [d.status for d in disputes(ep)] == ["accepted"]
        _, status = await ep.post(p.command("dispute", [p.option("reason", "status")]))
        assert "#1 · accepted" in text(status)
