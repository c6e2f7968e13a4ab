"""Typed options end to end: a slash command filled in as a member would, through the fake
gateway or the signed HTTP endpoint, gets the core's answer and changes what the core
changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import aliased

from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import load_pack
from bot.db.models import MockInterviewRow, TeamMemberRow, TeamRow, UserRow
from tests.adapters.discord import payloads as p
from tests.adapters.discord.conftest import running_adapter
from tests.adapters.discord.fake_discord import Call, FakeDiscord
from tests.adapters.discord.test_http_interactions import endpoint
from tests.support import row_counts
from tests.test_mock import PACK as MOCK_PACK

o, sub = p.option, p.subcommand
NADIA = p.OTHER_USER_ID


def text_of(message: dict[str, Any]) -> str:
    """What a member reads in a message: its content and its embeds' text."""
    parts = [message.get("content") or ""]
    for embed in message.get("embeds") or []:
        parts += [embed.get("title", ""), embed.get("description", "")]
        parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
    return "\n".join(parts)


async def callback_of(fake: FakeDiscord, payload: dict[str, Any]) -> Call:
    """Dispatch ``payload`` over the gateway; the first response the bot gave to it."""
    await fake.dispatch("INTERACTION_CREATE", payload)
    return await fake.wait_call("POST", rf"^/interactions/{payload['id']}/")


async def test_team_create_over_the_gateway_creates_the_team_and_says_so(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(db_url, clock, sample_bank, fake, signing_key) as (app, _):
        created = await callback_of(fake, p.command("team", [sub("create", o("name", "GPU Gang"))]))
        board = await callback_of(fake, p.command("leaderboard", [o("teams", True, 5)]))
        with app.session_factory() as session:
            teams = session.execute(
                select(TeamRow.name, UserRow.external_id)
                .join(TeamMemberRow, TeamMemberRow.team_id == TeamRow.id)
                .join(UserRow, UserRow.id == TeamMemberRow.user_id)
            ).all()
    assert created.json["type"] == 4 and created.json["data"]["flags"] == 64
    assert text_of(created.json["data"]) == "Team 'GPU Gang' created, and you are in it."
    assert [tuple(t) for t in teams] == [("GPU Gang", p.USER_ID)]
    assert "Team leaderboard" in text_of(board.json["data"])
    assert "GPU Gang" in text_of(board.json["data"])


async def test_a_bad_team_name_is_a_private_message_and_writes_nothing(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(db_url, clock, sample_bank, fake, signing_key) as (app, _):
        await callback_of(fake, p.command("help"))
        before = row_counts(app)
        answer = await callback_of(fake, p.command("team", [sub("join", o("name", "nobody"))]))
        after = row_counts(app)
    assert answer.json["data"]["flags"] == 64
    assert "There is no team called 'nobody'" in text_of(answer.json["data"])
    assert after == before


async def test_stats_with_a_user_option_show_that_members_stats(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(db_url, clock, sample_bank, fake, signing_key):
        await callback_of(fake, p.command("help", user_id=NADIA, user_name="Nadia"))
        theirs = await callback_of(fake, p.command("stats", [p.user_option("user", NADIA)]))
        mine = await callback_of(fake, p.command("stats"))
    assert theirs.json["data"]["embeds"][0]["title"] == "Nadia's stats"
    assert "Nadia has not answered anything yet." in text_of(theirs.json["data"])
    assert mine.json["data"]["embeds"][0]["title"] == "Your stats"


async def test_stats_of_someone_the_bot_never_met_say_so(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(db_url, clock, sample_bank, fake, signing_key):
        answer = await callback_of(fake, p.command("stats", [p.user_option("user", NADIA)]))
    assert f"I don't know anyone called '{NADIA}' here yet." in text_of(answer.json["data"])


async def test_mock_schedule_with_a_peer_over_http_invites_them_and_they_accept_by_id(
    db_url: str,
    clock: SimulatedClock,
    fake: FakeDiscord,
    signing_key,
    tmp_path: Path,
) -> None:
    pack = tmp_path / "mocktest.yaml"
    pack.write_text(MOCK_PACK, encoding="utf-8")
    bank = QuestionBank.from_packs([load_pack(pack)])
    async with endpoint(db_url, clock, bank, fake, signing_key) as ep:
        await ep.post(p.command("help", user_id=NADIA, user_name="Nadia"))  # Nadia is known
        schedule = p.command(
            "mock",
            [
                sub(
                    "schedule",
                    o("when", "tomorrow 15:00"),
                    p.user_option("peer", NADIA),
                    o("format", "technical"),
                    o("box", 10, 4),
                )
            ],
        )
        status, first = await ep.post(schedule)
        # the confirmation carries a calendar file: deferred, then the original is edited
        confirmation = await fake.wait_call(
            "PATCH", rf"^/webhooks/{p.APP_ID}/{schedule['token']}/messages/@original$"
        )
        invite = await fake.wait_call("POST", rf"^/channels/{p.dm_channel_id(NADIA)}/messages$")
        with ep.app.session_factory() as session:
            mock = session.scalars(select(MockInterviewRow)).one()
        accept = p.command(
            "mock", [sub("accept", o("id", mock.id, 4))], user_id=NADIA, user_name="Nadia"
        )
        await ep.post(accept)
        accepted = await fake.wait_call(
            "PATCH", rf"^/webhooks/{p.APP_ID}/{accept['token']}/messages/@original$"
        )
        interviewer = aliased(UserRow)
        with ep.app.session_factory() as session:
            row = session.execute(
                select(MockInterviewRow, interviewer.external_id).join(
                    interviewer, interviewer.id == MockInterviewRow.interviewer_id
                )
            ).one()
    assert (status, first) == (200, {"type": 5, "data": {"flags": 64}})
    said = text_of(confirmation.json)
    assert f"Mock interview #{mock.id} is scheduled." in said
    assert "I asked Nadia to interview you" in said
    assert [name.rsplit(".", 1)[-1] for name, _ in confirmation.files] == ["ics"]
    buttons = [c["custom_id"] for r in invite.json["components"] for c in r["components"]]
    assert f"mock:{mock.id}:accept" in buttons
    assert (mock.format, mock.round_minutes) == ("technical", 10)
    assert f"You're in: mock #{mock.id}." in text_of(accepted.json)
    mock_row, interviewer_id = row
    assert interviewer_id == NADIA and mock_row.status == "scheduled"


async def test_mock_available_days_are_suggested_over_the_gateway(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(db_url, clock, sample_bank, fake, signing_key):
        answer = await callback_of(fake, p.autocomplete("mock", "days", "week", sub="available"))
    assert answer.json["type"] == 8
    assert [c["value"] for c in answer.json["data"]["choices"]] == ["weekdays", "weekends"]
