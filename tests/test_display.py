"""Choices are shown in an order of each post's or session's own (the packs list the right
answer first more often than not); what is shown is what is graded, revealed and regraded."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select, update

from bot.bootstrap import App, bootstrap
from bot.cli.regrade import regrade_attempts
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import Question
from bot.core.display import daily_seed, displayed, in_pack_order, quiz_seed
from bot.core.grading import grade
from bot.core.grading.choice import named_choices
from bot.db.models import AttemptRow, DailyPromptRow, QuizSessionRow
from tests.support import Transcript, right_letter

BUNDLED = QuestionBank.load()
CHOICE = [q for q in BUNDLED if q.kind == "choice"]


def letter_lines(text: str) -> dict[str, str]:
    """``{"A": "first choice text", …}`` from a card's text."""
    return dict(re.findall(r"^([A-H])\) (.+)$", text, re.M))


@pytest.fixture
def choice_app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    settings = Settings(studybot_database_url=db_url, studybot_charts_dir=str(tmp_path))
    application = bootstrap(settings, clock=clock, bank=QuestionBank(CHOICE[:6]), auto_migrate=True)
    yield application
    application.close()


def test_the_right_answer_is_no_longer_mostly_a() -> None:
    assert len(CHOICE) >= 20
    in_pack = sum(q.choices[0] == q.correct[0] for q in CHOICE)
    assert in_pack > len(CHOICE) / 2  # the packs as written (not reordered)
    for post in range(1, 6):
        first = sum(displayed(q, daily_seed(post)).choices[0] == q.correct[0] for q in CHOICE)
        assert first < len(CHOICE) / 2, f"post {post}"
    assert all(q.choices == BUNDLED.get(q.id).choices for q in CHOICE)  # type: ignore[union-attr]


@given(st.sampled_from(CHOICE), st.integers(1, 10**9), st.integers(1, 10**9))
def test_the_order_is_a_permutation_fixed_by_post_and_question(
    question: object, post: int, other: int
) -> None:
    from bot.core.content import Question

    assert isinstance(question, Question)
    shown = displayed(question, daily_seed(post))
    assert sorted(shown.choices) == sorted(question.choices)
    assert shown == displayed(question, daily_seed(post))  # the same every time
    assert displayed(shown, daily_seed(post)) == shown  # applying it again changes nothing
    assert shown.correct == question.correct and shown.content_hash == question.content_hash
    assert displayed(question, None) is question


def test_the_post_the_grade_and_the_reveal_use_the_displayed_letters(choice_app: App) -> None:
    chat = Transcript(choice_app)
    (post,) = [m for m in chat.send("/daily") if m.card.title.startswith("Daily question")]
    with choice_app.session_factory() as session:
        prompt = session.scalars(select(DailyPromptRow)).one()
    question = choice_app.services.bank.get(prompt.question_id)
    assert question is not None
    shown = displayed(question, daily_seed(prompt.id))
    assert letter_lines(post.text) == {chr(65 + i): c for i, c in enumerate(shown.choices)}
    assert [b.label for b in post.card.buttons] == list(letter_lines(post.text))
    # /daily again shows the very same order
    again = chat.send("/daily")[0]
    assert letter_lines(again.text) == letter_lines(post.text)
    letter = right_letter(shown)
    assert "Correct" in chat.say(f"/answer {letter}")
    wrong = next(ch for ch, text in letter_lines(post.text).items() if text != shown.correct[0])
    bob = Transcript(choice_app, user="bob")
    assert "Not quite" in bob.say(f"/answer {wrong}")
    # bob's console opened last, so the channel's messages print in his
    reveal = [m for m in bob.send("/advance 8h") if "revealed" in m.card.title]
    assert len(reveal) == 1
    assert f"Answer: {letter}) {shown.correct[0]}" in reveal[0].text
    assert letter_lines(reveal[0].text) == letter_lines(post.text)


def test_a_regrade_grades_an_old_letter_against_the_order_it_was_shown_in(
    choice_app: App, clock: SimulatedClock
) -> None:
    chat = Transcript(choice_app)
    chat.send("/daily")
    chat.send("/quiz 2")
    with choice_app.session_factory() as session:
        prompt = session.scalars(select(DailyPromptRow)).one()
        quiz = session.scalars(select(QuizSessionRow)).one()
    bank = choice_app.services.bank
    daily_q = displayed(bank.get(prompt.question_id), daily_seed(prompt.id))
    quiz_q = displayed(bank.get(quiz.question_ids[0]), quiz_seed(quiz.id))
    assert daily_q is not None and quiz_q is not None
    assert "Correct" in chat.say(f"/answer {right_letter(quiz_q)}")  # the quiz's question
    chat.say("/quiz abandon")
    assert "Correct" in chat.say(f"/answer {right_letter(daily_q)}")  # then the daily
    with choice_app.session_factory() as session:
        session.execute(update(AttemptRow).values(grader_version="old"))
        session.commit()
    report = regrade_attempts(choice_app.session_factory, bank, clock)
    assert (report.regraded, report.changed) == (2, 0)
    with choice_app.session_factory() as session:
        verdicts = list(session.scalars(select(AttemptRow.verdict)))
    assert verdicts == ["correct", "correct"]


def test_a_resumed_quiz_shows_its_question_in_the_same_order(choice_app: App) -> None:
    chat = Transcript(choice_app)
    first = chat.send("/quiz 3")[-1]
    resumed = chat.send("/quiz resume")[-1]
    assert letter_lines(first.text) and letter_lines(resumed.text) == letter_lines(first.text)


SHUFFLED = [q for q in BUNDLED if q.kind in ("choice", "multi")]


def _picks(question: Question, draw: st.DrawFn) -> str:
    """An answer to ``question`` as shown: letters, places ("the second one"), or the words
    of one of its choices."""
    n = len(question.choices)
    picked = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=min(n, 3), unique=True))
    letters = ", ".join(chr(ord("A") + i) for i in sorted(picked))
    places = ["first", "second", "third", "fourth", "fifth"]
    forms = [letters, f"I'd say {letters}", question.choices[picked[0]]]
    if picked[0] < len(places):
        forms.append(f"the {places[picked[0]]} one")
    return draw(st.sampled_from(forms))


@given(st.data(), st.sampled_from(SHUFFLED), st.integers(1, 10**9), st.booleans())
def test_an_answer_in_pack_order_names_the_choices_the_user_meant_and_grades_the_same(
    data: st.DataObject, question: Question, post: int, daily: bool
) -> None:
    """What leaves the bot (the disputes export) grades against the pack, in the pack's
    order, exactly as the answer was graded against the choices the user saw."""
    seed = daily_seed(post) if daily else quiz_seed(post)
    shown = displayed(question, seed)
    answer = _picks(shown, data.draw)
    written = in_pack_order(question, seed, answer)
    meant = {shown.choices[i] for i in named_choices(shown, answer)}
    assert {question.choices[i] for i in named_choices(question, written)} == meant
    as_shown, outside = grade(shown, answer), grade(question, written)
    assert (outside.verdict, outside.score) == (as_shown.verdict, as_shown.score)
    if not re.search(r"\b[A-H]\b|\bone\b", answer):  # named in words: kept as typed
        assert written == answer


def test_an_answer_to_a_question_shown_in_pack_order_is_kept_as_typed() -> None:
    question = SHUFFLED[0]
    assert in_pack_order(question, None, "B") == "B"
    open_question = next(q for q in BUNDLED if q.kind == "open")
    assert in_pack_order(open_question, daily_seed(1), "B") == "B"


MULTI = [q for q in BUNDLED if q.kind == "multi"]


@given(st.sampled_from(MULTI), st.integers(1, 10**9))
def test_the_right_choices_of_a_multi_question_are_told_in_the_order_they_are_shown(
    question: Question, post: int
) -> None:
    """The reveal and the grade say "B) …, D) …, E) …", the letters in the order of the
    list above them, whatever order the pack lists the answers in."""
    shown = displayed(question, daily_seed(post))
    told = re.findall(r"(?:^|, )([A-H])\) ", shown.answer_text)
    assert told == sorted(told) and len(told) == len(question.correct)
    wrong = next(c for c in shown.choices if c not in shown.correct)
    feedback = grade(shown, chr(ord("A") + shown.choices.index(wrong))).feedback
    assert f"The right choices are {shown.answer_text}." in feedback
