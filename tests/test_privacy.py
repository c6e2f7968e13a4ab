"""A person's data: ``/studybot export-me`` sends it as a file, ``/studybot forget-me
confirm`` deletes it and nobody else's, an admin's ``/studybot forget-workspace confirm``
deletes a workspace, and ``studybot data delete`` does the same on the server."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.bootstrap import App, bootstrap
from bot.cli import main
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.events import Event, EventKind
from bot.core.messages import Delivery, Outgoing
from bot.db.models import (
    ActivityDayRow,
    AttemptRow,
    MockInterviewRow,
    ReviewCardRow,
    StreakRow,
    UserRow,
    WorkspaceRow,
)
from tests.support import Transcript, row_counts
from tests.test_mock import make_app, mock_bank
from tests.test_quiz import make_question

__all__ = ["mock_bank"]  # a fixture shared with tests.test_mock

# Choice questions whose right choice is "alpha": answered by its words, whatever the order.
BANK = QuestionBank([make_question("mig-1", "mig"), make_question("cuda-1", "cuda")])


@pytest.fixture
def app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    application = bootstrap(
        Settings(studybot_database_url=db_url, studybot_charts_dir=str(tmp_path / "charts")),
        clock=clock,
        bank=BANK,
        auto_migrate=True,
    )
    yield application
    application.close()


def chat(app: App, user: str) -> Transcript:
    transcript = Transcript(app, user=user)
    transcript.start()
    return transcript


def busy_person(app: App, user: str) -> Transcript:
    """Someone who answered a daily question and a quiz, and joined a team."""
    person = chat(app, user)
    person.send("/daily")
    assert "Correct" in person.say("alpha")
    person.send("/quiz cuda 1")
    assert "Correct" in person.say("alpha")
    person.send("/goal 2027-02-10 technical")
    if "already" not in person.say("/team create Infra"):
        return person
    person.send("/team join Infra")
    return person


def exported(replies: list[Outgoing]) -> dict[str, Any]:
    (dm,) = [m for m in replies if m.delivery is Delivery.DM]
    (file,) = dm.attachments
    assert file.mime_type == "application/json" and file.filename.endswith(".json")
    document: dict[str, Any] = json.loads(file.content.decode("utf-8"))
    return document


def user_id(app: App, name: str) -> int:
    with app.session_factory() as session:
        found = session.scalar(select(UserRow.id).where(UserRow.external_id == name))
    assert found is not None
    return found


def rows_of(app: App, model: Any, uid: int) -> int:
    with app.session_factory() as session:
        column = model.user_id
        return session.scalar(select(func.count()).select_from(model).where(column == uid)) or 0


def test_export_me_sends_every_row_of_mine_and_none_of_anyone_else(app: App) -> None:
    alice = busy_person(app, "alice")
    busy_person(app, "bob")
    alice_id, bob_id = user_id(app, "alice"), user_id(app, "bob")
    before = row_counts(app)

    replies = alice.send("/studybot export-me")

    assert "direct message" in replies[-1].text
    document = exported(replies)
    assert document["studybot_export"] == 1 and document["user"] == "alice"
    tables = document["tables"]
    assert [row["external_id"] for row in tables["user"]] == ["alice"]
    for name in (
        "attempt",
        "streak",
        "activity_day",
        "review_card",
        "team_member",
        "interview_goal",
    ):
        assert tables[name], f"{name} is missing from the export"
        assert {row["user_id"] for row in tables[name]} == {alice_id}
    assert len(tables["attempt"]) == rows_of(app, AttemptRow, alice_id)
    assert bob_id not in {row.get("user_id") for rows in tables.values() for row in rows}
    assert row_counts(app) == before  # exporting changes nothing


def test_the_export_counts_its_rows_in_words_that_agree_with_their_numbers(app: App) -> None:
    alice = busy_person(app, "alice")
    (dm,) = [m for m in alice.send("/studybot export-me") if m.delivery is Delivery.DM]
    counted = re.search(r"UTC: (.+)\. To delete it", dm.text)
    assert counted is not None
    parts = dict((word, int(n)) for n, word in re.findall(r"(\d+) ([a-z ]+)", counted.group(1)))
    assert parts["attempts"] == 2 and parts["activity day"] == 1 and parts["user"] == 1
    for word, n in parts.items():
        assert word.endswith("s") == (n != 1), f"{n} {word}"


def test_forget_me_says_what_it_would_delete_and_deletes_nothing_without_confirm(
    app: App,
) -> None:
    alice = busy_person(app, "alice")
    before = row_counts(app)
    text = alice.say("/studybot forget-me")
    assert "/studybot forget-me confirm" in text and "attempt" in text
    assert row_counts(app) == before
    assert "Usage: /studybot forget-me [confirm]" in alice.say("/studybot forget-me now please")
    assert row_counts(app) == before


def test_forget_me_confirm_deletes_me_and_leaves_everyone_else_as_they_were(app: App) -> None:
    alice = busy_person(app, "alice")
    busy_person(app, "bob")
    alice_id, bob_id = user_id(app, "alice"), user_id(app, "bob")
    bob_before = {m: rows_of(app, m, bob_id) for m in (AttemptRow, StreakRow, ReviewCardRow)}

    text = alice.say("/studybot forget-me confirm")

    assert text.startswith("Done: I deleted your data")
    for model in (AttemptRow, StreakRow, ReviewCardRow, ActivityDayRow):
        assert rows_of(app, model, alice_id) == 0
    assert {m: rows_of(app, m, bob_id) for m in bob_before} == bob_before
    # The next message starts a new, empty record.
    again = exported(alice.send("/studybot export-me"))
    assert set(again["tables"]) == {"user"}
    assert "No streak running" in alice.say("/streak")


def test_a_mock_i_only_interviewed_stays_for_its_candidate_without_me(
    db_url: str, clock: SimulatedClock, mock_bank: QuestionBank
) -> None:
    app = make_app(db_url, clock, mock_bank)
    bob = chat(app, "bob")
    chat(app, "alice").send("/streak")
    bob.send("/mock schedule Mon 18:00 with @alice technical")
    with app.session_factory() as session:
        (mock,) = session.scalars(select(MockInterviewRow)).all()
    alice_id = user_id(app, "alice")
    assert mock.interviewer_id == alice_id
    alice = chat(app, "alice")
    document = exported(alice.send("/studybot export-me"))
    assert [row["id"] for row in document["tables"]["mock_interview"]] == [mock.id]

    alice.send("/studybot forget-me confirm")

    with app.session_factory() as session:
        kept = session.get(MockInterviewRow, mock.id)
    assert kept is not None and kept.interviewer_id is None
    app.close()


def test_only_an_admin_can_forget_a_workspace_and_it_takes_confirm(app: App) -> None:
    def forget(user: str, args: str, *, is_admin: bool) -> list[Outgoing]:
        event = Event(
            EventKind.COMMAND,
            "slack",
            "T1",
            "C1",
            user,
            command="studybot",
            args=f"forget-workspace {args}".strip(),
            is_admin=is_admin,
        )
        return app.bot.handle(event)

    forget("U2", "", is_admin=True)  # the workspace and its admin exist from here on
    before = row_counts(app)
    assert "Only a workspace admin" in forget("U1", "confirm", is_admin=False)[0].text
    assert "/studybot forget-workspace confirm" in forget("U2", "", is_admin=True)[0].text
    assert row_counts(app) == before

    assert forget("U2", "confirm", is_admin=True)[0].text.startswith("Done: I deleted")

    with app.session_factory() as session:
        left = session.execute(select(WorkspaceRow.platform, WorkspaceRow.external_id)).all()
        assert ("slack", "T1") not in {tuple(row) for row in left}


def test_studybot_data_delete_deletes_one_workspace_on_the_server(
    app: App, db_url: str, capsys: Any
) -> None:
    busy_person(app, "alice")
    with app.session_factory() as session:
        workspaces = session.scalar(select(func.count()).select_from(WorkspaceRow))
    assert workspaces == 1

    assert main(["data", "delete", "--workspace", "nowhere", "--db", db_url, "--yes"]) == 2
    assert "no workspace nowhere" in capsys.readouterr().err
    assert main(["data", "delete", "--workspace", "console", "--db", db_url]) == 2
    assert "--yes" in capsys.readouterr().err

    assert main(["data", "delete", "--workspace", "console", "--db", db_url, "--yes"]) == 0

    assert "deleted console workspace console" in capsys.readouterr().out
    with app.session_factory() as session:
        assert session.scalar(select(func.count()).select_from(WorkspaceRow)) == 0
        assert session.scalar(select(func.count()).select_from(AttemptRow)) == 0
