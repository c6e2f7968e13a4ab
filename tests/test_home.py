"""The Home tab: the user's answers and points, streak, reviews due, next mock and ranks,
each shown only when there is something true to say, and only from the user's workspace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import Question, load_pack
from bot.core.display import daily_seed, displayed, quiz_seed
from bot.core.events import Event, EventKind
from bot.core.home import NONE_YET
from bot.db.models import AttemptRow, DailyPromptRow, PointsBucketRow, QuizSessionRow, UserRow
from tests.support import Transcript, right_letter
from tests.test_mock import GOOD, PACK
from tests.test_quiz import chat_for


@pytest.fixture
def home_app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    """The app with a bank that can fill a daily, a live round and a technical mock."""
    path = tmp_path / "mocktest.yaml"
    path.write_text(PACK, encoding="utf-8")
    application = bootstrap(
        Settings(studybot_database_url=db_url),
        clock=clock,
        bank=QuestionBank.from_packs([load_pack(path)]),
        auto_migrate=True,
    )
    yield application
    application.close()


def right_answer(question: Question) -> str:
    """A right answer to ``question`` as displayed (pass the copy in displayed order)."""
    return right_letter(question) if question.kind == "choice" else GOOD


def event(
    kind: EventKind,
    user: str,
    *,
    command: str = "",
    args: str = "",
    action: str = "",
    workspace: str = "console",
    platform: str = "console",
) -> Event:
    return Event(
        kind,
        platform,
        workspace,
        "general",
        user,
        user_name=user,
        command=command,
        args=args,
        action=action,
    )


def home(app: App, user: str = "alice", **where: str) -> dict[str, str]:
    """The fields of ``user``'s home card, label → value, in order."""
    replies = app.bot.handle(event(EventKind.ACTION, user, action="home", **where))
    (card,) = [m.card for m in replies if m.tags.get("view") == "home"]
    return {f.label: f.value for f in card.fields}


def daily_question(app: App) -> Question:
    with app.session_factory() as session:
        prompt = session.scalars(
            select(DailyPromptRow).order_by(DailyPromptRow.id.desc()).limit(1)
        ).one()
        qid, seed = prompt.question_id, daily_seed(prompt.id)
    question = displayed(app.services.bank.get(qid), seed)
    assert question is not None
    return question


def live_question(app: App) -> Question:
    with app.session_factory() as session:
        row = session.scalars(select(QuizSessionRow).where(QuizSessionRow.mode == "live")).one()
    question = displayed(app.services.bank.get(row.question_ids[row.position]), quiz_seed(row.id))
    assert question is not None
    return question


def all_time_points(app: App, user: str) -> int:
    with app.session_factory() as session:
        points = session.scalar(
            select(PointsBucketRow.points)
            .join(UserRow, UserRow.id == PointsBucketRow.user_id)
            .where(UserRow.external_id == user, PointsBucketRow.period == "all")
        )
    assert points is not None
    return points


def attempts_of(app: App, user: str) -> int:
    with app.session_factory() as session:
        return int(
            session.scalar(
                select(func.count())
                .select_from(AttemptRow)
                .join(UserRow, UserRow.id == AttemptRow.user_id)
                .where(UserRow.external_id == user)
            )
            or 0
        )


def answer_the_daily(chat: Transcript, app: App) -> None:
    chat.send("/daily")
    assert "Correct" in chat.say(f"/answer {right_answer(daily_question(app))}")


def test_a_fresh_user_sees_only_the_none_yet_hint(home_app: App) -> None:
    assert home(home_app) == {"Answers": NONE_YET}


def test_points_count_daily_and_live_answers_as_the_leaderboard_does(home_app: App) -> None:
    chat = chat_for(home_app)
    answer_the_daily(chat, home_app)
    after_daily = all_time_points(home_app, "alice")
    chat.send("/quiz live mig 1")
    assert "Correct" in chat.say(f"/answer {right_answer(live_question(home_app))}")
    points = all_time_points(home_app, "alice")
    assert points > after_daily > 0  # the live round's points are on the board too

    fields = home(home_app)
    assert fields["Answers"] == str(attempts_of(home_app, "alice")) == "2"
    assert fields["Points"] == str(points)
    assert fields["Streak"] == "🔥 1 day · longest 1 day · ❄ 0 freezes held"
    assert fields["Rank this week"] == f"#1 · {points} pts"
    assert "Team rank" not in fields and "Next mock" not in fields


def test_the_rank_this_week_counts_the_people_above_and_a_new_week_starts_empty(
    home_app: App,
) -> None:
    answer_the_daily(chat_for(home_app), home_app)
    bob = chat_for(home_app, "bob")
    bob.send("/answer wrong")
    assert "Rank this week" not in home(home_app, "bob")  # no points, no place on the board
    bob.send("/quiz live mig 1")
    bob.send(f"/answer {right_answer(live_question(home_app))}")
    alice, bob_points = all_time_points(home_app, "alice"), all_time_points(home_app, "bob")
    assert alice > 0 and bob_points > 0
    # one plus the people with more points: equal points share a rank
    assert home(home_app)["Rank this week"] == f"#{1 + (bob_points > alice)} · {alice} pts"
    assert home(home_app, "bob")["Rank this week"] == (
        f"#{1 + (alice > bob_points)} · {bob_points} pts"
    )

    chat_for(home_app).send("/advance 7d")
    fields = home(home_app)
    assert "Rank this week" not in fields
    assert fields["Points"] == str(alice)  # all time stays


def test_a_missed_day_ends_the_streak_but_the_longest_stays(home_app: App) -> None:
    chat = chat_for(home_app)
    answer_the_daily(chat, home_app)
    chat.send("/advance 1d")
    chat.send("/daily")
    chat.say(f"/answer {right_answer(daily_question(home_app))}")
    assert home(home_app)["Streak"] == "🔥 2 days · longest 2 days · ❄ 0 freezes held"
    chat.send("/advance 3d")
    assert home(home_app)["Streak"] == "none running · longest 2 days · ❄ 0 freezes held"


def test_time_away_shows_beside_the_streak_and_keeps_it(home_app: App) -> None:
    chat = chat_for(home_app)
    answer_the_daily(chat, home_app)
    chat.say("/away 2026-12-02 2026-12-06")
    assert (
        home(home_app)["Time away"]
        == "✈ Time away planned: Wed 02 Dec 2026 to Sun 06 Dec 2026, 5 days."
    )
    chat.send("/advance 3d")
    assert home(home_app)["Streak"] == "🔥 1 day · longest 1 day · ❄ 0 freezes held"
    assert home(home_app)["Time away"].startswith("✈ Away until Sun 06 Dec 2026")


def test_reviews_due_show_the_count_now_or_when_the_next_one_falls_due(
    home_app: App, clock: SimulatedClock
) -> None:
    chat = chat_for(home_app)
    assert "Reviews due" not in home(home_app)  # no cards yet
    chat.send("/quiz mig 1")
    chat.send("/answer something unrelated")  # wrong: the card comes back within minutes
    fields = home(home_app)
    assert fields["Reviews due"].startswith("none now · next today at ")
    shown = fields["Reviews due"].removeprefix("none now · next today at ")
    assert shown > clock.now().strftime("%H:%M")
    chat.send("/advance 1h")
    assert home(home_app)["Reviews due"] == "1 now: type /review"


def test_the_next_mock_shows_its_time_in_each_users_zone_its_format_and_role(
    home_app: App,
) -> None:
    alice = Transcript(home_app, tz="Europe/Berlin")
    bob = Transcript(home_app, user="bob", tz="America/New_York")
    bob.send("/help")
    alice.send("/mock schedule Fri 15:00 with @bob technical")
    later = alice.say("/mock schedule Sat 15:00 technical")
    assert "scheduled" in later

    assert home(home_app)["Next mock"] == (
        "#1 · Fri 04 Dec 2026 15:00 CET · technical · with bob (not accepted yet)"
    )
    assert home(home_app, "bob")["Next mock"] == (
        "#1 · Fri 04 Dec 2026 09:00 EST · technical · you interview alice (accept: /mock accept 1)"
    )
    bob.send("/mock accept 1")
    assert home(home_app)["Next mock"].endswith("technical · with bob")
    assert home(home_app, "bob")["Next mock"].endswith("technical · you interview alice")

    alice.send("/mock cancel 1")
    assert home(home_app)["Next mock"] == "#2 · Sat 05 Dec 2026 15:00 CET · technical · solo"
    assert "Next mock" not in home(home_app, "bob")


def test_team_rank_shows_each_of_the_users_teams_among_teams(home_app: App) -> None:
    alice = chat_for(home_app)
    alice.send("/team create Alpha")
    alice.send("/team create Beta")
    bob = chat_for(home_app, "bob")
    bob.send("/team create Gamma")
    bob.send("/team join Alpha")
    answer_the_daily(alice, home_app)
    points = all_time_points(home_app, "alice")

    lines = home(home_app)["Team rank"].splitlines()
    assert lines == [
        f"Alpha: #1 of 3 teams · {points:.1f} pts per active member",
        f"Beta: #1 of 3 teams · {points:.1f} pts per active member",
    ]
    assert home(home_app, "bob")["Team rank"].splitlines() == [
        f"Alpha: #1 of 3 teams · {points:.1f} pts per active member",
        "Gamma: no points yet this week",
    ]


def test_another_workspaces_data_never_shows(home_app: App) -> None:
    chat = chat_for(home_app)
    answer_the_daily(chat, home_app)
    chat.send("/quiz mig 1")
    chat.send("/answer something unrelated")
    chat.send("/team create Alpha")
    chat.send("/mock schedule Fri 15:00 technical")
    assert set(home(home_app)) == {
        "Answers",
        "Points",
        "Streak",
        "Reviews due",
        "Next mock",
        "Rank this week",
        "Team rank",
        "Season",
    }

    elsewhere = {"platform": "slack", "workspace": "T2"}
    assert home(home_app, **elsewhere) == {"Answers": NONE_YET}

    home_app.bot.handle(
        event(EventKind.COMMAND, "alice", command="team", args="create Alpha", **elsewhere)
    )
    assert home(home_app, **elsewhere) == {
        "Answers": NONE_YET,
        "Team rank": "Alpha: no points yet this week",
    }
    assert home(home_app)["Team rank"].startswith("Alpha: #1 of 1 team · ")


def test_the_season_under_way_shows_the_place_and_its_last_day(home_app: App) -> None:
    chat = chat_for(home_app)
    answer_the_daily(chat, home_app)
    points = all_time_points(home_app, "alice")
    assert home(home_app)["Season"] == f"2026-12: #1 · {points} pts · ends Thu 31 Dec"
    assert "Season" not in home(home_app, "bob")  # no points this season, no place
    chat.send("/advance 31d")  # January: a new season, nothing scored in it yet
    fields = home(home_app)
    assert "Season" not in fields
    assert fields["Points"] == str(points)
