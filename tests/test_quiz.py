"""Personal quizzes, read as chat transcripts: one question at a time, graded as answered,
a summary at the end; due reviews first; resume or abandon; a restart loses nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import Question, question_from_dict
from bot.core.display import displayed, quiz_seed
from bot.core.errors import UserError
from bot.core.events import Event, EventKind
from bot.core.messages import Delivery, Outgoing
from bot.core.quiz.common import MAX_N, parse_request
from bot.db.models import AttemptRow, PointsBucketRow, QuizSessionRow, ReviewCardRow
from tests.support import Transcript, right_letter, row_counts, wrong_letter


def make_question(qid: str, topic: str, difficulty: int = 1, kind: str = "choice") -> Question:
    raw: dict[str, Any] = {
        "id": qid,
        "topic": topic,
        "role": ["eng"],
        "difficulty": difficulty,
        "kind": kind,
        "prompt": f"Question {qid}?",
        "explanation": "Because it is.",
        "sources": ["https://example.com/source"],
    }
    if kind == "choice":
        raw |= {"choices": ["alpha", "beta", "gamma", "delta"], "answer": "alpha"}
    elif kind == "short":
        raw |= {"answers": ["right"]}
    elif kind == "open":
        raw |= {"rubric": [{"point": "names isolation", "any": ["isolation"]}]}
    return question_from_dict(raw, "test")


BANK = QuestionBank(
    [
        make_question("mig-1", "mig", 1),
        make_question("mig-2", "mig", 2),
        make_question("mig-3", "mig", 3),
        make_question("mig-open", "mig", 2, "open"),
        make_question("mps-1", "mps", 1),
        make_question("mps-2", "mps", 2, "short"),
        make_question("cuda-1", "cuda", 1),
        make_question("cuda-2", "cuda", 3),
    ]
)
RIGHT = {"choice": "A", "short": "right", "open": "isolation"}
WRONG = {"choice": "B", "short": "wrong", "open": "nothing"}


def make_app(db_url: str, clock: SimulatedClock, charts_dir: Path) -> App:
    return bootstrap(
        Settings(studybot_database_url=db_url, studybot_charts_dir=str(charts_dir)),
        clock=clock,
        bank=BANK,
        auto_migrate=True,
    )


def running_app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    """The app with the test bank, closed afterwards (the body of the app fixtures)."""
    application = make_app(db_url, clock, tmp_path / "charts")
    yield application
    application.close()


@pytest.fixture
def quiz_app(sqlite_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    """The app on SQLite: transcripts that do not depend on the database engine."""
    yield from running_app(sqlite_url, clock, tmp_path)


@pytest.fixture
def any_app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    """The app on every configured backend (SQLite, and PostgreSQL when set)."""
    yield from running_app(db_url, clock, tmp_path)


def chat_for(app: App, user: str = "alice", channel: str = "general") -> Transcript:
    """A transcript whose user has been here before (workspace, user and channel exist), so
    that "nothing written" compares only the rows a command itself would write."""
    transcript = Transcript(app, user=user, channel=channel)
    transcript.start()
    transcript.send("/help")
    transcript.messages.clear()
    return transcript


@pytest.fixture
def qchat(quiz_app: App) -> Transcript:
    return chat_for(quiz_app)


def current_question(app: App) -> Question:
    """The question the open personal quiz is asking."""
    with app.session_factory() as session:
        row = session.scalars(
            select(QuizSessionRow).where(
                QuizSessionRow.open_key.is_not(None), QuizSessionRow.mode != "live"
            )
        ).one()
        q = displayed(BANK.get(row.question_ids[row.position]), quiz_seed(row.id))
    assert q is not None
    return q


def right(question: Question) -> str:
    """A right answer to ``question`` as displayed (a choice's letter in the shown order)."""
    return right_letter(question) if question.kind == "choice" else RIGHT[question.kind]


def wrong(question: Question) -> str:
    return wrong_letter(question) if question.kind == "choice" else WRONG[question.kind]


def answer_right(chat: Transcript, app: App) -> list[Outgoing]:
    return chat.send(f"/answer {right(current_question(app))}")


def answer_wrong(chat: Transcript, app: App) -> list[Outgoing]:
    return chat.send(f"/answer {wrong(current_question(app))}")


def test_a_quiz_asks_one_question_at_a_time_privately(qchat: Transcript) -> None:
    replies = qchat.send("/quiz mig 2")
    assert [m.delivery for m in replies] == [Delivery.PRIVATE]
    assert replies[0].card.title == "Quiz · question 1 of 2"
    assert replies[0].to == "alice"
    assert not qchat.posts()


def test_each_answer_is_graded_with_feedback_then_the_next_question(
    qchat: Transcript, quiz_app: App
) -> None:
    qchat.send("/quiz cuda 2")
    replies = answer_right(qchat, quiz_app)
    assert "Correct" in replies[0].text
    assert "Next review" in replies[0].text
    assert replies[1].card.title == "Quiz · question 2 of 2"


def test_the_last_answer_brings_a_summary_with_score_topics_and_what_to_review(
    qchat: Transcript, quiz_app: App
) -> None:
    qchat.send("/quiz mig 3")
    answer_right(qchat, quiz_app)
    wrong_q = current_question(quiz_app)
    answer_wrong(qchat, quiz_app)
    summary = answer_right(qchat, quiz_app)[-1]
    assert summary.card.title == "Quiz done"
    text = summary.text
    assert "Score: 2/3 correct" in text
    assert "By topic: mig 2/3" in text
    assert f"Question {wrong_q.id}?" in text


def test_quiz_answers_are_stored_with_cards_but_earn_no_board_points(any_app: App) -> None:
    quiz_app, qchat = any_app, chat_for(any_app)
    qchat.send("/quiz cuda 2")
    answer_right(qchat, quiz_app)
    answer_right(qchat, quiz_app)
    with quiz_app.session_factory() as session:
        attempts = list(session.scalars(select(AttemptRow)))
        cards = list(session.scalars(select(ReviewCardRow)))
        buckets = list(session.scalars(select(PointsBucketRow)))
        quiz = session.scalars(select(QuizSessionRow)).one()
    assert [a.points for a in attempts] == [0, 0]
    assert all(a.quiz_session_id == quiz.id for a in attempts)
    assert {c.question_id for c in cards} == {"cuda-1", "cuda-2"}
    assert buckets == []
    assert quiz.status == "done" and quiz.open_key is None


def test_plain_text_answers_the_open_quiz_before_the_daily_question(
    qchat: Transcript, quiz_app: App
) -> None:
    qchat.send("/daily")
    qchat.send("/quiz cuda 1")
    replies = qchat.send(RIGHT[current_question(quiz_app).kind])
    assert replies[-1].card.title == "Quiz done"
    with quiz_app.session_factory() as session:
        attempt = session.scalars(select(AttemptRow)).one()
    assert attempt.quiz_session_id is not None and attempt.daily_prompt_id is None


def test_choice_buttons_answer_the_quiz_and_stale_buttons_are_refused(
    qchat: Transcript, quiz_app: App
) -> None:
    question_card = qchat.send("/quiz cuda 2")[-1]
    letter = right_letter(current_question(quiz_app))  # as this quiz displays the choices
    (button,) = [b.action for b in question_card.card.buttons if b.label == letter]
    assert button.startswith("quiz:") and button.endswith(f":{letter}")
    first = asyncio.run(quiz_app.handle(action_event(button)))
    assert "Correct" in first[0].text
    again = asyncio.run(quiz_app.handle(action_event(button)))
    assert "already answered" in again[0].text


def action_event(
    action: str, user: str = "alice", text: str = "", channel: str = "general"
) -> Event:
    """A button click (or form submission) as an adapter would hand it to the core."""
    return Event(
        EventKind.ACTION, "console", "console", channel, user, user, action=action, text=text
    )


def test_a_second_quiz_offers_to_resume_or_abandon_the_open_one(
    qchat: Transcript, quiz_app: App
) -> None:
    qchat.send("/quiz mig 3")
    before = row_counts(quiz_app)
    offer = qchat.send("/quiz cuda")
    assert offer[0].card.title == "You have a quiz open"
    assert [b.label for b in offer[0].card.buttons] == ["Resume", "Abandon"]
    assert "/quiz resume" in offer[0].text
    assert row_counts(quiz_app) == before


def test_resume_shows_the_current_question_again(qchat: Transcript, quiz_app: App) -> None:
    qchat.send("/quiz mig 3")
    answer_right(qchat, quiz_app)
    resumed = qchat.send("/quiz resume")
    assert resumed[0].card.title == "Quiz · question 2 of 3"


def test_abandon_closes_the_quiz_and_a_new_one_can_start(qchat: Transcript, quiz_app: App) -> None:
    first = qchat.send("/quiz mig 3")[-1]
    abandon = next(b.action for b in qchat.send("/quiz")[0].card.buttons if b.label == "Abandon")
    assert "abandoned" in asyncio.run(quiz_app.handle(action_event(abandon)))[0].text
    started = qchat.send("/quiz cuda 1")
    assert started[-1].card.title == "Quiz · question 1 of 1"
    assert started[-1].card.buttons[0].action != first.card.buttons[0].action
    with quiz_app.session_factory() as session:
        statuses = sorted(r.status for r in session.scalars(select(QuizSessionRow)))
    assert statuses == ["abandoned", "open"]


def test_resume_and_abandon_without_an_open_quiz_say_so(qchat: Transcript) -> None:
    assert "no quiz open" in qchat.say("/quiz resume")
    assert "no quiz open" in qchat.say("/quiz abandon")


def test_a_quiz_survives_a_restart(
    db_url: str, clock: SimulatedClock, tmp_path: Path, any_app: App
) -> None:
    quiz_app, qchat = any_app, chat_for(any_app)
    qchat.send("/quiz mig 3")
    answer_right(qchat, quiz_app)
    quiz_app.close()
    restarted = make_app(db_url, clock, tmp_path / "charts")
    try:
        chat = Transcript(restarted)
        assert chat.send("/quiz resume")[0].card.title == "Quiz · question 2 of 3"
        answer_right(chat, restarted)
        summary = answer_right(chat, restarted)[-1]
        assert summary.card.title == "Quiz done"
        assert "Score: 3/3 correct" in summary.text
    finally:
        restarted.close()


def test_due_reviews_come_first(qchat: Transcript, quiz_app: App, clock: SimulatedClock) -> None:
    qchat.send("/quiz cuda 1")
    missed = current_question(quiz_app)
    answer_wrong(qchat, quiz_app)  # Again: due again in minutes
    clock.advance(timedelta(hours=1))
    first = qchat.send("/quiz 3")[-1]
    assert first.card.blocks[0] == missed.prompt


def test_weak_topics_come_before_new_questions(qchat: Transcript, quiz_app: App) -> None:
    qchat.send("/quiz cuda 1")
    answer_right(qchat, quiz_app)
    qchat.send("/quiz mps 1")
    seen = current_question(quiz_app)
    answer_wrong(qchat, quiz_app)  # mps is now the weakest topic; nothing is due yet
    qchat.send("/quiz 2")
    first = current_question(quiz_app)
    assert first.topic == "mps" and first.id != seen.id
    answer_right(qchat, quiz_app)
    assert current_question(quiz_app).id == seen.id


def test_quiz_takes_the_weak_topics_stats_names_a_failed_review_makes_one_weak(
    qchat: Transcript, quiz_app: App
) -> None:
    """/quiz and /stats read weak topics by one rule (``mastery.weakest_topics``): mig
    averages 75%, yet its last review failed, so /stats calls it weak and /quiz asks it
    before any new question."""
    for _ in range(4):  # every mig question: the open one wrong, the three others right
        qchat.send("/quiz mig 1")
        question = current_question(quiz_app)
        (answer_wrong if question.kind == "open" else answer_right)(qchat, quiz_app)
    assert "Weakest (under 70% on average, or the last review failed): mig (75%)" in qchat.say(
        "/stats"
    )
    qchat.send("/quiz 1")
    assert current_question(quiz_app).topic == "mig"  # not one of the new mps or cuda ones


def test_a_quiz_with_a_difficulty_asks_only_that_difficulty(
    qchat: Transcript, quiz_app: App
) -> None:
    replies = qchat.send("/quiz 5 hard")
    assert "Only 2 questions match" in replies[0].text
    assert current_question(quiz_app).difficulty == 3


def test_an_unknown_topic_suggests_the_closest_and_writes_nothing(
    qchat: Transcript, quiz_app: App
) -> None:
    before = row_counts(quiz_app)
    text = qchat.say("/quiz migg")
    assert "There is no topic 'migg'" in text
    assert "Did you mean mig?" in text
    assert row_counts(quiz_app) == before


def test_a_word_like_no_topic_gets_the_list_and_no_far_fetched_suggestion(
    qchat: Transcript, quiz_app: App
) -> None:
    before = row_counts(quiz_app)
    text = qchat.say("/quiz impossible")
    assert "There is no topic 'impossible'" in text and "Topics:" in text
    assert "Did you mean" not in text
    assert row_counts(quiz_app) == before


def test_an_unknown_topic_of_several_words_is_quoted_as_typed(
    qchat: Transcript, quiz_app: App
) -> None:
    before = row_counts(quiz_app)
    assert "There is no topic 'live live'." in qchat.say("/quiz live live live")
    assert "There is no topic 'deep sea'." in qchat.say("/quiz deep sea 3")
    assert row_counts(quiz_app) == before


@pytest.mark.parametrize("n", ["0", "21", "-3", "1000000000000"])
def test_a_number_of_questions_out_of_range_is_refused_and_writes_nothing(
    qchat: Transcript, quiz_app: App, n: str
) -> None:
    before = row_counts(quiz_app)
    assert f"Pick between 1 and {MAX_N} questions" in qchat.say(f"/quiz mig {n}")
    assert row_counts(quiz_app) == before


def test_an_empty_answer_to_a_quiz_is_refused_and_writes_nothing(
    qchat: Transcript, quiz_app: App
) -> None:
    qchat.send("/quiz mig 2")
    before = row_counts(quiz_app)
    assert "empty" in qchat.say("/answer   ")
    assert row_counts(quiz_app) == before


TOPICS = BANK.topics()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_quiz_arguments_either_parse_or_raise_a_user_error(text: str) -> None:
    try:
        request = parse_request(text, TOPICS)
    except UserError as err:
        assert str(err)
    else:
        assert 1 <= request.n <= MAX_N
        assert request.topic is None or request.topic in TOPICS
        assert request.difficulty in (None, 1, 2, 3)


@settings(max_examples=100, deadline=None)
@given(
    topic=st.sampled_from([None, *TOPICS]),
    n=st.integers(1, MAX_N),
    difficulty=st.sampled_from([None, 1, 2, 3]),
    upper=st.booleans(),
    order=st.permutations([0, 1, 2]),
)
def test_valid_quiz_arguments_parse_in_any_order_and_case(
    topic: str | None, n: int, difficulty: int | None, upper: bool, order: list[int]
) -> None:
    words = ["" if topic is None else topic, str(n), ""]
    if difficulty is not None:
        words[2] = ["easy", "medium", "hard"][difficulty - 1]
    line = " ".join(words[i] for i in order if words[i])
    request = parse_request(line.upper() if upper else line, TOPICS)
    assert (request.topic, request.n, request.difficulty) == (topic, n, difficulty)


def test_quiz_answers_count_for_the_daily_streak(qchat: Transcript, quiz_app: App) -> None:
    qchat.send("/quiz cuda 1")
    feedback = answer_right(qchat, quiz_app)[0]
    assert "🔥 1" in feedback.text and "streak" in feedback.text
    assert "Streak: 1 day (longest 1)" in qchat.say("/stats")
