"""A reply that is not an answer (names no choice, holds no number, is empty of words, emoji
only, unreadable or a huge paste) gets a hint that gives nothing away, and records nothing:
the next real answer still scores. Graded by the real grader, end to end."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.bootstrap import App, bootstrap
from bot.cli.grade import grade_lines
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import Pack, Question, load_pack, question_from_dict
from bot.core.grading import MAX_ANSWER_CHARS, grade
from bot.db.models import AttemptRow
from tests.support import Transcript, row_counts
from tests.test_answers import count, daily_question
from tests.test_mock import GOOD, PACK
from tests.test_quiz import BANK, RIGHT
from tests.test_quiz_live import live_question

SHIPPED = load_pack(Path(__file__).parent / "data" / "grading" / "questions.yaml")


def _question(kind: str) -> Question:
    return next(q for q in SHIPPED.questions if q.kind == kind and (kind != "open" or q.rubric))


CHOICE, MULTI, NUMERIC, SHORT, OPEN = map(
    _question, ("choice", "multi", "numeric", "short", "open")
)
HUGE = "Here is my whole design doc, pasted. " * 200
NOTHING_TO_READ = ["🙂", "🤷‍♀️🤷‍♀️", "???", "...", "—", "\ufffd\ufffd\ufffd\x00\x01", HUGE]


def _reveals(question: Question, feedback: str) -> bool:
    return question.answer_text in feedback or bool(
        question.explanation and question.explanation in feedback
    )


@pytest.mark.parametrize("question", [CHOICE, MULTI, NUMERIC, SHORT, OPEN], ids=lambda q: q.kind)
@pytest.mark.parametrize("answer", NOTHING_TO_READ, ids=range(len(NOTHING_TO_READ)))
def test_a_reply_with_nothing_to_read_is_no_answer_and_reveals_nothing(
    question: Question, answer: str
) -> None:
    result = grade(question, answer)
    assert not result.answered
    assert result.score == 0 and not _reveals(question, result.feedback)


def test_a_huge_paste_is_told_the_limit() -> None:
    result = grade(OPEN, HUGE)
    assert not result.answered and f"{MAX_ANSWER_CHARS:,}" in result.feedback


@pytest.mark.parametrize("answer", ["clear", "hmm", "pass", "I'm not sure", "xyzzy", "你好"])
def test_a_choice_reply_that_names_no_choice_gets_a_letter_hint(answer: str) -> None:
    result = grade(CHOICE, answer)
    assert not result.answered and not _reveals(CHOICE, result.feedback)
    last = chr(ord("A") + len(CHOICE.choices) - 1)
    assert f"A–{last}" in result.feedback


@pytest.mark.parametrize("answer", ["no idea", "a lot", "it depends on the card"])
def test_a_numeric_reply_without_a_number_gets_a_number_hint(answer: str) -> None:
    result = grade(NUMERIC, answer)
    assert not result.answered and "number" in result.feedback
    assert not _reveals(NUMERIC, result.feedback)


def test_a_wrong_answer_is_still_an_answer() -> None:
    wrong_choice = next(c for c in CHOICE.choices if c not in CHOICE.correct)
    assert grade(CHOICE, wrong_choice).answered
    assert grade(NUMERIC, "12345678").answered
    assert grade(SHORT, "something else entirely").answered
    assert grade(OPEN, "I would just buy more GPUs").answered


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from([CHOICE, MULTI, NUMERIC, SHORT, OPEN]),
    st.text(st.characters(categories=["So", "Sk", "Po", "Pd", "Zs", "Cf"]), min_size=1),
)
def test_symbols_punctuation_and_emoji_alone_are_never_an_answer(
    question: Question, text: str
) -> None:
    if not text.strip():
        return
    assert not grade(question, text).answered


def test_the_jsonl_contract_marks_a_reply_that_is_no_answer() -> None:
    pack = Pack("t", "t", None, (CHOICE,))
    lines = "".join(
        json.dumps({"id": CHOICE.id, "answer": a}) + "\n" for a in ("🙂", CHOICE.correct[0])
    )
    out = io.StringIO()
    assert grade_lines(pack, io.StringIO(lines), out) == 0
    first, second = map(json.loads, out.getvalue().splitlines())
    assert first["answered"] is False and first["verdict"] == "incorrect"
    assert "answered" not in second and second["verdict"] == "correct"


# -- through the console: nothing is recorded, the next real answer scores ----------------------


def _app(db_url: str, clock: SimulatedClock, bank: QuestionBank, tmp_path: Path) -> App:
    return bootstrap(
        Settings(studybot_database_url=db_url, studybot_charts_dir=str(tmp_path / "charts")),
        clock=clock,
        bank=bank,
    )


@pytest.fixture
def app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    choice_only = QuestionBank([q for q in BANK if q.kind == "choice"])
    application = _app(db_url, clock, choice_only, tmp_path)
    yield application
    application.close()


def chat(app: App, user: str = "alice") -> Transcript:
    transcript = Transcript(app, user=user)
    transcript.start()
    transcript.send("/streak")
    return transcript


def test_clear_to_the_daily_is_no_answer_and_the_next_answer_scores(app: App) -> None:
    alice = chat(app)
    alice.send("/daily")
    before = row_counts(app)
    for reply in ("clear", "🙂", HUGE):
        text = alice.say(f"/answer {reply}")
        assert "Answer with a letter A–D" in text and "alpha" not in text
    assert row_counts(app) == before
    assert daily_question(app) == "choice"
    reply = alice.say(f"/answer {RIGHT['choice']}")
    assert "Correct" in reply and "points" in reply and "practice" not in reply
    assert count(app, AttemptRow) == 1


def test_no_answer_to_a_quiz_question_keeps_it_open(app: App) -> None:
    alice = chat(app)
    alice.send("/quiz mig 2")
    before = row_counts(app)
    assert "Answer with a letter" in alice.say("the blue one?")
    assert row_counts(app) == before
    assert alice.send("/answer A")[0].card.title == "Question 1 of 2"


def test_no_answer_to_a_live_question_lets_the_person_still_win(app: App) -> None:
    chat(app).send("/quiz live cuda 2")
    assert live_question(app).kind == "choice"
    bob = chat(app, "bob")
    before = row_counts(app)
    assert "Answer with a letter" in bob.say("/answer lol")
    assert row_counts(app) == before
    assert "Correct!" in bob.say(f"/answer {RIGHT['choice']}")


@pytest.fixture
def mock_app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    path = tmp_path / "mocktest.yaml"
    path.write_text(PACK, encoding="utf-8")
    application = _app(db_url, clock, QuestionBank.from_packs([load_pack(path)]), tmp_path)
    yield application
    application.close()


def test_no_answer_to_a_mock_round_keeps_the_round_open(mock_app: App) -> None:
    alice = chat(mock_app)
    alice.send("/mock schedule in 2 hours")
    alice.send("/advance 2h")
    before = row_counts(mock_app)
    assert "Round 1: noted" in alice.say("👍")  # the round's answer is graded when done
    assert "Answer in a few words" in alice.say("done")
    assert row_counts(mock_app) == before
    alice.send(GOOD)
    assert "Round 1 answer recorded" in alice.say("done")


def test_the_hint_names_the_letters_the_question_has() -> None:
    bare = question_from_dict(
        {
            "id": "q",
            "topic": "mig",
            "role": ["eng"],
            "difficulty": 1,
            "kind": "choice",
            "prompt": "Which?",
            "choices": ["one thing", "another thing"],
            "answer": "one thing",
            "explanation": "Because.",
            "sources": ["https://example.com"],
        },
        "t",
    )
    assert "A–B" in grade(bare, "clear").feedback


@pytest.mark.parametrize("answer", ["b", "B", "(b)", "C.", "a, c", "A and D", " d ) "])
def test_choice_letters_to_a_short_question_are_no_answer(answer: str) -> None:
    """A short question has no choices: a letter names nothing, as a reply naming no choice
    does in a choice question (the daily, quizzes, live rounds and the CLI alike)."""
    result = grade(SHORT, answer)
    assert not result.answered and not _reveals(SHORT, result.feedback)
    assert result.feedback.startswith("This question has no choices to pick by letter.")


@pytest.mark.parametrize("answer", ["band", "a bit", "MIG", "b200"])
def test_a_short_reply_that_is_more_than_letters_is_still_graded(answer: str) -> None:
    assert grade(SHORT, answer).answered
