"""An interview date: /goal sets, shows and ends it; reviews tighten as it nears (the
retention curve), /quiz leans to the interview's topics, /stats suggests a mock once in the
last weeks, and /stats and the App Home show the days left and the topics not covered.
Bad input says what is wrong and changes nothing."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App
from bot.core import srs
from bot.core.goal import PEAK_RETENTION, desired_retention, parse_goal
from bot.core.model import User
from bot.core.srs import DEFAULT_RETENTION
from bot.db.models import InterviewGoalRow, QuizSessionRow, ReviewCardRow, UserRow
from tests.support import Transcript
from tests.test_home import home
from tests.test_mock import mapp, mchat, mclock, mock_bank, open_chat

__all__ = ["mapp", "mchat", "mclock", "mock_bank"]  # fixtures shared with tests.test_mock

TODAY = date(2026, 12, 1)  # the mock fixtures' clock: Tue 1 Dec 2026, 10:00 in Berlin
PRODUCT = {"t-product-1", "t-product-2", "t-product-3"}


def goals(app: App) -> list[tuple[str, date, str]]:
    """(user, date, format) of every interview goal."""
    with app.session_factory() as session:
        rows = session.execute(
            select(UserRow.external_id, InterviewGoalRow.day, InterviewGoalRow.format)
            .join(UserRow, UserRow.id == InterviewGoalRow.user_id)
            .order_by(UserRow.external_id)
        )
        return [(who, day, fmt) for who, day, fmt in rows]


def card_due(app: App, user: str, question_id: str) -> datetime:
    with app.session_factory() as session:
        due = session.scalar(
            select(ReviewCardRow.due_at)
            .join(UserRow, UserRow.id == ReviewCardRow.user_id)
            .where(UserRow.external_id == user, ReviewCardRow.question_id == question_id)
        )
        assert due is not None
        return due


def latest_quiz(app: App) -> list[str]:
    with app.session_factory() as session:
        row = session.scalars(select(QuizSessionRow).order_by(QuizSessionRow.id.desc())).first()
        assert row is not None
        return [str(q) for q in row.question_ids]


# -- setting, showing, ending -------------------------------------------------------------------


def test_goal_is_set_shown_and_ended(mchat: Transcript, mapp: App) -> None:
    assert "/goal DATE [loop|technical|product|behavioral] · /goal · /goal off — an interview" in (
        mchat.say("/help")
    )
    assert "no interview date set" in mchat.say("/goal")
    reply = mchat.say("/goal 2027-02-10 technical")
    assert "Interview date set: Wed 10 Feb 2027 (technical), in 71 days." in reply
    assert "aim at 90% recall now, rising to 95% in the last week" in reply
    shown = mchat.say("/goal")
    assert "Your interview: Wed 10 Feb 2027 (technical), in 71 days." in shown
    assert "Not covered yet: mig, mps, kubernetes." in shown  # the bank's technical topics
    mchat.say("/goal feb 12")  # dateparser, as /away reads dates; the format defaults to loop
    assert goals(mapp) == [("alice", date(2027, 2, 12), "loop")]
    assert "Interview date cleared" in mchat.say("/goal off")
    assert goals(mapp) == []
    assert "no interview date set" in mchat.say("/goal off")


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("/goal yesterday", "has passed"),
        ("/goal 2026-11-30 loop", "Mon 30 Nov 2026 has passed"),
        ("/goal banana", "could not read 'banana' as a date"),
        ("/goal 2027-02-30", "'2027-02-30' is not a date: February 2027 has no day 30"),
        ("/goal 2027-02-10 onsite", "'onsite' is not an interview format"),
        ("/goal 2030-01-01", "at most two years ahead"),
    ],
)
def test_bad_goals_say_why_and_keep_the_date_there_was(
    mchat: Transcript, mapp: App, line: str, says: str
) -> None:
    mchat.say("/goal 2027-01-20 product")
    before = goals(mapp)
    reply = mchat.say(line)
    assert says in reply
    assert goals(mapp) == before


@given(st.text(max_size=40))
def test_any_text_is_a_goal_or_a_friendly_error(text: str) -> None:
    from bot.core.errors import UserError

    try:
        day, fmt = parse_goal(text, TODAY)
    except UserError as error:
        assert str(error)
    else:
        assert TODAY <= day <= TODAY + timedelta(days=730)
        assert fmt in ("loop", "technical", "product", "behavioral")


# -- the retention curve --------------------------------------------------------------------


def test_the_retention_curve_rises_from_eight_weeks_to_one_week_before() -> None:
    assert desired_retention(None) == DEFAULT_RETENTION == 0.9
    assert desired_retention(-1) == 0.9  # the date has passed: back to the default
    assert desired_retention(120) == desired_retention(56) == 0.9
    assert desired_retention(35) == pytest.approx(0.9 + 0.05 * 21 / 49, abs=1e-4)
    assert desired_retention(7) == desired_retention(0) == PEAK_RETENTION == 0.95


@given(st.integers(min_value=0, max_value=400))
def test_retention_never_falls_as_the_date_nears(days: int) -> None:
    assert 0.9 <= desired_retention(days) <= 0.95
    assert desired_retention(max(days - 1, 0)) >= desired_retention(days)


def test_a_higher_retention_brings_a_card_back_sooner() -> None:
    user = User(1, 1, "u", "u", "UTC")
    now = datetime(2026, 12, 1, 9, tzinfo=UTC)
    dues = []
    for retention in (None, 0.95):
        card = None
        at = now
        for _ in range(4):
            card = srs.review(
                card,
                user=user,
                question_id="q",
                rating=srs.Rating.Good,
                now=at,
                zone=UTC,
                retention=retention,
            )
            at = max(card.due_at, at + timedelta(minutes=1))
        assert card is not None
        dues.append(card.due_at - card.last_review_at if card.last_review_at else None)
    assert dues[1] is not None and dues[0] is not None and dues[1] < dues[0]


def test_a_right_answer_comes_back_sooner_with_an_interview_next_week(
    mchat: Transcript, mapp: App
) -> None:
    bob = open_chat(mapp, "bob")
    bob.say("/tz Europe/Berlin")  # the same zone, so that due days fall alike
    mchat.say("/goal 2026-12-08")  # a week ahead for alice; bob has none
    for _day in range(3):
        for chat in (mchat, bob):
            chat.say("/quiz mig 1 easy")  # the one choice question
            assert "Correct" in chat.say("/answer 7")
        mchat.send("/advance 1d")
    alice_due = card_due(mapp, "alice", "t-mig-choice")
    bob_due = card_due(mapp, "bob", "t-mig-choice")
    assert alice_due < bob_due


# -- quiz choice, a mock suggestion, stats and home ----------------------------------------------


def test_a_product_interview_puts_product_questions_first_in_a_quiz(
    mchat: Transcript, mapp: App
) -> None:
    mchat.say("/goal 2027-01-15 product")
    mchat.say("/quiz 3")
    assert set(latest_quiz(mapp)) == PRODUCT


def test_in_the_last_three_weeks_stats_suggests_a_mock_once(mchat: Transcript) -> None:
    mchat.say("/goal 2027-01-20 technical")  # 50 days ahead
    assert "time for a mock" not in mchat.say("/stats")
    mchat.send("/advance 30d")  # 20 days left
    stats = mchat.say("/stats")
    assert "Your interview is in 20 days: time for a mock under real conditions." in stats
    assert "/mock schedule tomorrow 18:00 technical focus=weak" in stats
    assert "time for a mock" not in mchat.say("/stats")  # once


def test_no_mock_is_suggested_when_one_is_coming_up(mchat: Transcript) -> None:
    mchat.say("/goal 2026-12-10")
    mchat.say("/mock schedule tomorrow 18:00")
    assert "time for a mock" not in mchat.say("/stats")


def test_stats_and_home_show_the_days_left_and_the_topics_not_covered(
    mchat: Transcript, mapp: App
) -> None:
    mchat.say("/goal 2026-12-24 technical")
    mchat.say("/quiz mig 1 easy")
    mchat.say("/answer 7")
    fields = home(mapp)
    assert fields["Interview"] == "Thu 24 Dec 2026 (technical) · in 23 days"
    assert fields["Not covered yet"] == "mps, kubernetes"
    stats = mchat.say("/stats")
    assert "Thu 24 Dec 2026 (technical) · in 23 days" in stats
    assert "mps, kubernetes" in stats
    mchat.send("/as bob")
    mchat.say("/goal 2027-01-01")
    mchat.send("/as alice")
    assert "Fri 01 Jan 2027" not in mchat.say("/stats bob")  # a goal is its owner's only
    mchat.send("/advance 24d")  # the date has passed: nothing more to count down
    assert "Interview" not in home(mapp)


def test_no_review_falls_due_after_the_interview(mchat: Transcript, mapp: App) -> None:
    """Right answers stretch a card's interval, but with an interview on 10 Dec it comes back
    by the start of 9 Dec in the user's zone; once the date has passed, intervals are FSRS's."""
    mchat.say("/goal 2026-12-10")
    day_before = datetime(2026, 12, 8, 23, tzinfo=UTC)  # 00:00 on 9 Dec in Berlin
    for _day in range(4):
        mchat.say("/quiz mig 1 easy")
        assert "Correct" in mchat.say("/answer 7")
        assert card_due(mapp, "alice", "t-mig-choice").replace(tzinfo=UTC) <= day_before
        mchat.send("/advance 1d")
    mchat.send("/advance 10d")  # past the interview
    mchat.say("/quiz mig 1 easy")
    assert "Correct" in mchat.say("/answer 7")
    assert card_due(mapp, "alice", "t-mig-choice").replace(tzinfo=UTC) > datetime(
        2026, 12, 22, tzinfo=UTC
    )


def test_a_cap_that_has_passed_leaves_the_interval_alone() -> None:
    user = User(1, 1, "u", "u", "UTC")
    now = datetime(2026, 12, 1, 9, tzinfo=UTC)
    card = srs.review(None, user=user, question_id="q", rating=srs.Rating.Easy, now=now, zone=UTC)
    capped = srs.review(
        None,
        user=user,
        question_id="q",
        rating=srs.Rating.Easy,
        now=now,
        zone=UTC,
        due_by=now - timedelta(hours=1),
    )
    assert capped.due_at == card.due_at > now
    earlier = srs.review(
        None,
        user=user,
        question_id="q",
        rating=srs.Rating.Easy,
        now=now,
        zone=UTC,
        due_by=now + timedelta(hours=2),
    )
    assert earlier.due_at == now + timedelta(hours=2) < card.due_at
