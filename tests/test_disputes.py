"""Disputes through the console: a user disputes a grade (``/dispute [REASON]`` or the grade's
Dispute button), admins decide (``/studybot disputes``), and what the decision changes: the
attempt's grade, its points and the boards, the user's DM; bad input changes nothing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App, bootstrap
from bot.cli import main
from bot.cli.regrade import regrade_attempts
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import Question, question_from_dict
from bot.core.display import choice_lines, daily_seed, displayed, quiz_seed
from bot.core.grading import GRADER_VERSION
from bot.core.messages import Delivery, Outgoing
from bot.db.models import (
    ActivityDayRow,
    AttemptGradeRow,
    AttemptRow,
    DailyPromptRow,
    DisputeRow,
    PointsBucketRow,
    QuizSessionRow,
)
from tests.support import Transcript, row_counts, wrong_letter
from tests.test_quiz import action_event, make_question

# One daily question (difficulty 2, the right choice is "alpha", letter A), and a quiz topic.
DAILY_RAW = {
    "id": "mig-2",
    "topic": "mig",
    "role": ["eng"],
    "difficulty": 2,
    "kind": "choice",
    "prompt": "Question mig-2?",
    "choices": ["alpha", "beta", "gamma", "delta"],
    "answer": "alpha",
    "explanation": "Because it is.",
    "sources": ["https://example.com/source"],
}
DAILY = question_from_dict(DAILY_RAW, "test")
BANK = QuestionBank([DAILY, make_question("cuda-1", "cuda", 1)])
POINTS = 10 * DAILY.difficulty


def app_with(
    bank: QuestionBank, db_url: str, clock: SimulatedClock, tmp_path: Path
) -> Iterator[App]:
    application = bootstrap(
        Settings(studybot_database_url=db_url, studybot_charts_dir=str(tmp_path / "charts")),
        clock=clock,
        bank=bank,
        auto_migrate=True,
    )
    yield application
    application.close()


@pytest.fixture
def app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from app_with(QuestionBank([DAILY]), db_url, clock, tmp_path)


def person(app: App, name: str) -> Transcript:
    chat = Transcript(app, user=name)
    chat.start()
    chat.send("/streak")  # the user exists from here on
    return chat


@pytest.fixture
def alice(app: App) -> Transcript:
    chat = person(app, "alice")
    chat.send("/daily")
    return chat


@pytest.fixture
def admin(app: App) -> Transcript:
    return person(app, "ada")  # the console's users are admins


def private(replies: list[Outgoing]) -> list[Outgoing]:
    return [m for m in replies if m.delivery is Delivery.PRIVATE]


def disputes(app: App) -> list[DisputeRow]:
    with app.session_factory() as session:
        return list(session.scalars(select(DisputeRow).order_by(DisputeRow.id)))


def attempts(app: App) -> list[AttemptRow]:
    with app.session_factory() as session:
        return list(session.scalars(select(AttemptRow).order_by(AttemptRow.id)))


def board(app: App) -> dict[str, tuple[int, int]]:
    """The all-time board: period → (points, answers) of the only user on it."""
    with app.session_factory() as session:
        rows = session.scalars(select(PointsBucketRow)).all()
        return {r.period: (r.points, r.answers) for r in rows}


def streak_days(app: App) -> list[tuple[int, int]]:
    with app.session_factory() as session:
        rows = session.scalars(select(ActivityDayRow)).all()
        return [(r.user_id, r.answers) for r in rows]


def dispute_wrong_answer(alice: Transcript, reason: str = "alpha is what I meant") -> None:
    alice.send("/answer B")
    (filed,) = alice.send(f"/dispute {reason}")
    assert filed.card.title == "Dispute filed"


# -- the user's side ---------------------------------------------------------------------------


def test_a_wrong_grade_carries_a_dispute_button_and_a_right_one_none(
    app: App, alice: Transcript
) -> None:
    (wrong,) = private(alice.send("/answer B"))
    (attempt,) = attempts(app)
    assert "Incorrect" in wrong.text
    assert [(b.label, b.action) for b in wrong.card.buttons] == [
        ("Dispute", f"dispute:{attempt.id}")
    ]
    (right,) = private(alice.send("/answer A"))  # practice now, but graded
    assert "Correct" in right.text
    assert right.card.buttons == ()


def test_dispute_files_one_for_the_latest_graded_answer_with_its_grade(
    app: App, alice: Transcript
) -> None:
    alice.send("/answer B")
    (filed,) = alice.send("/dispute   I meant   alpha ")
    assert "Dispute #1 filed" in filed.text
    assert "Question mig-2?" in filed.text and "Incorrect (0%)" in filed.text
    (row,) = disputes(app)
    (attempt,) = attempts(app)
    assert (row.attempt_id, row.status, row.reason) == (attempt.id, "open", "I meant alpha")
    assert (row.verdict_before, row.score_before) == ("incorrect", 0.0)
    assert "The answer is" in row.feedback_before  # the grade's reasons, as they were
    status = alice.say("/dispute status")
    assert "#1 · open" in status and "waiting for an admin" in status


def test_a_dispute_without_a_reason_is_filed_too(app: App, alice: Transcript) -> None:
    alice.send("/answer B")
    assert "No reason given" in alice.say("/dispute")
    assert [d.reason for d in disputes(app)] == [""]


@pytest.mark.parametrize(
    ("before", "line", "error"),
    [
        ([], "/dispute it was right", "You have no graded answer to dispute yet"),
        (["/answer A"], "/dispute", "graded correct already"),
        (["/answer B", "/dispute first"], "/dispute second", "You already disputed that answer"),
        (["/answer B"], "/dispute " + "x" * 1001, "too long"),
        (["/answer B"], "/studybot disputes accept 99", "There is no dispute #99"),
        (["/answer B"], "/studybot disputes accept one", "is not a dispute number"),
        (["/answer B"], "/studybot disputes accept ²", "is not a dispute number"),
        (["/answer B"], "/studybot disputes accept " + "9" * 21, "is not a dispute number"),
        (["/answer B"], "/studybot disputes accept 9999999999", "is not a dispute number"),
        (["/answer B"], "/studybot disputes frobnicate", "I don't know /studybot disputes"),
        (["/answer B", "/dispute x"], "/studybot disputes reject 1", "Say why the grade stands"),
        (["/answer B", "/dispute x"], "/studybot disputes accept", "Usage: /studybot disputes"),
    ],
)
def test_bad_input_gets_a_friendly_error_and_changes_nothing(
    app: App, alice: Transcript, before: list[str], line: str, error: str
) -> None:
    for done in before:
        alice.send(done)
    counts = row_counts(app)
    (reply,) = alice.send(line)
    assert error in reply.text
    assert row_counts(app) == counts


def test_a_decided_dispute_cannot_be_decided_again(
    app: App, alice: Transcript, admin: Transcript
) -> None:
    dispute_wrong_answer(alice)
    admin.send("/studybot disputes reject 1 alpha was not named")
    counts = row_counts(app)
    assert "already rejected" in admin.say("/studybot disputes accept 1")
    assert "already rejected" in admin.say("/studybot disputes reject 1 again")
    assert row_counts(app) == counts


def test_the_dispute_button_opens_a_form_whose_reason_files_the_dispute(
    app: App, alice: Transcript
) -> None:
    (wrong,) = private(alice.send("/answer B"))
    (button,) = wrong.card.buttons
    (modal,) = asyncio.run(app.handle(action_event(button.action)))
    assert modal.delivery is Delivery.MODAL and modal.form is not None
    assert disputes(app) == []
    (filed,) = asyncio.run(app.handle(action_event(modal.form.action, text="alpha, I typed B")))
    assert "Dispute #1 filed" in filed.text
    assert [(d.reason, d.status) for d in disputes(app)] == [("alpha, I typed B", "open")]
    counts = row_counts(app)
    (again,) = asyncio.run(app.handle(action_event(button.action)))
    assert "You already disputed that answer (dispute #1, open)" in again.text
    assert row_counts(app) == counts


@pytest.mark.parametrize("action", ["dispute:999", "dispute:x", "dispute:1:what", "dispute:1"])
def test_a_dispute_button_of_another_users_or_no_answer_is_refused(
    app: App, alice: Transcript, action: str
) -> None:
    alice.send("/answer B")  # attempt 1 is alice's
    person(app, "bob")
    counts = row_counts(app)
    (reply,) = asyncio.run(app.handle(action_event(action, user="bob")))
    assert reply.text == "That button is no longer valid."
    assert row_counts(app) == counts


# -- the admins' side --------------------------------------------------------------------------


def test_admins_see_the_queue_with_question_answer_grade_and_reasons(
    alice: Transcript, admin: Transcript
) -> None:
    dispute_wrong_answer(alice, "alpha is the mechanism")
    head, card = admin.send("/studybot disputes")
    assert "1 open dispute" in head.text
    text = card.text
    assert card.card.title == "Dispute #1 · alice · open"
    for shown in (
        "Question (mig-2): Question mig-2?",
        "Answer: B",
        "Grade: ❌ Incorrect (0%)",
        "The answer is",  # the grader's reasons
        "Reason: alpha is the mechanism",
        "Expected: A) alpha",
    ):
        assert shown in text
    assert [b.action for b in card.card.buttons] == [
        "disputes:1:correct",
        "disputes:1:partial",
        "disputes:1:reject",
    ]


# A daily question whose first post shows its choices as delta, beta, gamma, alpha: the
# right one ("alpha", A in the pack) is D there, and A is delta, a wrong one.
SHUFFLED_RAW = {**DAILY_RAW, "id": "mig-shuffled-3", "prompt": "Question mig-shuffled-3?"}
SHUFFLED = question_from_dict(SHUFFLED_RAW, "test")


@pytest.fixture
def shuffled_app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from app_with(QuestionBank([SHUFFLED]), db_url, clock, tmp_path)


def shown_daily(app: App) -> Question:
    """The daily question as its post showed it."""
    with app.session_factory() as session:
        prompt = session.scalars(select(DailyPromptRow)).one()
    return displayed(SHUFFLED, daily_seed(prompt.id))


def dispute_pack_letter_a(app: App) -> Question:
    """alice answers A, the pack's letter of the right answer, which her post showed as a
    wrong choice; she disputes it. The question as shown."""
    alice = person(app, "alice")
    alice.send("/daily")
    shown = shown_daily(app)
    assert shown.choices[0] != SHUFFLED.correct[0] == SHUFFLED.choices[0]
    (graded,) = private(alice.send("/answer A"))
    assert "Incorrect" in graded.text and f"The answer is {shown.answer_text}" in graded.text
    alice.send("/dispute A is what I meant")
    return shown


def test_the_admin_card_shows_the_choices_and_the_expected_letter_as_the_user_saw_them(
    shuffled_app: App,
) -> None:
    shown = dispute_pack_letter_a(shuffled_app)
    _head, card = person(shuffled_app, "ada").send("/studybot disputes")
    text = card.text
    assert choice_lines(shown) in text  # A) delta, B) beta, … as alice saw them
    assert "Answer: A" in text
    assert f"Expected: {shown.answer_text}" in text
    assert shown.answer_text.startswith("D) alpha")
    assert "Expected: A)" not in text


@pytest.mark.parametrize(
    ("tz", "footer", "day"),
    [
        ("Pacific/Kiritimati", "Filed 2026-12-02 11:00 +14", "02 Dec"),
        ("America/Los_Angeles", "Filed 2026-12-01 13:00 PST", "01 Dec"),
        ("UTC", "Filed 2026-12-01 21:00 UTC", "01 Dec"),
    ],
)
def test_the_card_and_the_status_give_the_filing_time_in_the_readers_zone(
    clock: SimulatedClock, alice: Transcript, admin: Transcript, tz: str, footer: str, day: str
) -> None:
    clock.advance(timedelta(hours=12))  # 21:00 UTC
    dispute_wrong_answer(alice)
    admin.send(f"/tz {tz}")
    alice.send(f"/tz {tz}")
    _head, card = admin.send("/studybot disputes")
    assert card.card.footer == footer
    assert f"filed {day}, waiting for an admin" in alice.say("/dispute status")


def test_accepting_as_correct_regrades_the_attempt_points_and_board_follow_and_the_user_is_told(
    app: App, alice: Transcript, admin: Transcript
) -> None:
    dispute_wrong_answer(alice)
    assert board(app) == {}  # a wrong answer earned nothing, so it is not on the board
    days = streak_days(app)
    replies = admin.send("/studybot disputes accept 1 correct the grader missed it")
    said = [m for m in replies if m.delivery is Delivery.PRIVATE]
    told = [m for m in replies if m.delivery is Delivery.DM]
    assert f"Dispute #1 (by alice) accepted: the answer is now ✅ Correct (100%), +{POINTS}" in (
        said[0].text
    )
    assert [m.to for m in told] == ["alice"]
    assert "accepted" in told[0].text and f"+{POINTS} points" in told[0].text
    assert "the grader missed it" in told[0].text
    (attempt,) = attempts(app)
    assert (attempt.verdict, attempt.score, attempt.points) == ("correct", 1.0, POINTS)
    assert attempt.grader_version == "dispute#1"
    assert set(board(app).values()) == {(POINTS, 1)}  # week, month and all time
    assert streak_days(app) == days  # the streak already counted the answer
    with app.session_factory() as session:
        history = session.scalars(select(AttemptGradeRow).order_by(AttemptGradeRow.id)).all()
    assert [(g.verdict, g.grader_version) for g in history] == [
        ("incorrect", GRADER_VERSION),
        ("correct", "dispute#1"),
    ]
    assert f"{POINTS} pts" in alice.say("/leaderboard all")
    status = alice.say("/dispute status")
    assert "#1 · accepted" in status and "now ✅ Correct (100%)" in status


@pytest.mark.parametrize(
    ("word", "meant"),
    [
        ("parital", "partial"),
        ("Partail", "partial"),
        ("partially", "partial"),
        ("partly", "partial"),
        ("part", "partial"),
        ("corect", "correct"),
        ("correctly", "correct"),
        ("corr", "correct"),
    ],
)
def test_a_verdict_mistyped_is_questioned_and_decides_nothing(
    app: App, alice: Transcript, admin: Transcript, word: str, meant: str
) -> None:
    dispute_wrong_answer(alice)
    counts = row_counts(app)
    (reply,) = admin.send(f"/studybot disputes accept 1 {word} close enough")
    assert reply.text.startswith(f"Did you mean {meant}?")
    assert "nothing is decided" in reply.text and len(reply.text.splitlines()) == 1
    assert f"/studybot disputes accept 1 {meant} [NOTE]" in reply.text
    assert row_counts(app) == counts
    assert [(d.status, d.verdict_after) for d in disputes(app)] == [("open", None)]
    admin.send(f"/studybot disputes accept 1 partial {word} close enough")  # the note's word
    (row,) = disputes(app)
    assert (row.status, row.verdict_after, row.note) == (
        "accepted",
        "partial",
        f"{word} close enough",
    )


@pytest.mark.parametrize(
    ("words", "verdict", "note"),
    [
        ("partial, close enough", "partial", "close enough"),
        ("Correct.", "correct", ""),
        ("the grader missed the synonym", "correct", "the grader missed the synonym"),
    ],
)
def test_accept_reads_the_verdict_before_the_note(
    app: App, alice: Transcript, admin: Transcript, words: str, verdict: str, note: str
) -> None:
    dispute_wrong_answer(alice)
    admin.send(f"/studybot disputes accept 1 {words}")
    (row,) = disputes(app)
    assert (row.status, row.verdict_after, row.note) == ("accepted", verdict, note)


def test_accepting_as_partial_gives_half_the_points(
    app: App, alice: Transcript, admin: Transcript
) -> None:
    dispute_wrong_answer(alice)
    admin.send("/studybot disputes accept 1 partial")
    (attempt,) = attempts(app)
    assert (attempt.verdict, attempt.score, attempt.points) == ("partial", 0.5, POINTS // 2)
    assert set(board(app).values()) == {(POINTS // 2, 1)}
    (row,) = disputes(app)
    assert (row.status, row.verdict_after, row.score_after) == ("accepted", "partial", 0.5)


def test_a_partial_answer_is_accepted_only_as_correct(
    app: App, alice: Transcript, admin: Transcript
) -> None:
    dispute_wrong_answer(alice)
    admin.send("/studybot disputes accept 1 partial")
    with app.session_factory() as session, session.begin():  # a second dispute, of a partial
        session.execute(DisputeRow.__table__.update().values(status="open"))
    counts = row_counts(app)
    assert "graded partial already" in admin.say("/studybot disputes accept 1 partial")
    assert row_counts(app) == counts


def test_rejecting_keeps_the_grade_and_tells_the_user_the_note(
    app: App, alice: Transcript, admin: Transcript
) -> None:
    dispute_wrong_answer(alice)
    replies = admin.send("/studybot disputes reject 1 B names beta, not alpha")
    (told,) = [m for m in replies if m.delivery is Delivery.DM]
    assert told.to == "alice"
    assert "rejected" in told.text and "B names beta, not alpha" in told.text
    (attempt,) = attempts(app)
    assert (attempt.verdict, attempt.points) == ("incorrect", 0)
    assert board(app) == {}
    (row,) = disputes(app)
    assert (row.status, row.note, row.verdict_after) == (
        "rejected",
        "B names beta, not alpha",
        None,
    )
    assert "#1 · rejected" in alice.say("/dispute status")
    assert "No open disputes" in admin.say("/studybot disputes")
    assert "Dispute #1 · alice · rejected" in admin.say("/studybot disputes rejected")


def test_a_practice_answer_is_regraded_but_earns_no_points(
    app: App, alice: Transcript, admin: Transcript
) -> None:
    alice.send("/answer A")  # the scored answer
    dispute_wrong_answer(alice)  # a practice answer
    admin.send("/studybot disputes accept 1")
    _scored, practice = attempts(app)
    assert (practice.verdict, practice.points) == ("correct", 0)
    assert set(board(app).values()) == {(POINTS, 1)}  # the scored answer's, unchanged


def test_a_quiz_answer_is_regraded_and_earns_no_points(
    db_url: str, clock: SimulatedClock, tmp_path: Path
) -> None:
    app = bootstrap(
        Settings(studybot_database_url=db_url, studybot_charts_dir=str(tmp_path / "charts")),
        clock=clock,
        bank=BANK,
        auto_migrate=True,
    )
    try:
        alice = person(app, "alice")
        alice.send("/quiz cuda 1")
        with app.session_factory() as session:
            quiz = session.scalars(select(QuizSessionRow)).one()
        shown = displayed(BANK.get(quiz.question_ids[0]), quiz_seed(quiz.id))
        assert shown is not None  # a wrong letter as this quiz displays the choices
        (graded, *_) = private(alice.send(f"/answer {wrong_letter(shown)}"))
        assert [b.label for b in graded.card.buttons] == ["Dispute", "Bury", "Suspend"]
        alice.send("/dispute I meant alpha")
        person(app, "ada").send("/studybot disputes accept 1")
        (attempt,) = attempts(app)
        assert (attempt.verdict, attempt.points, attempt.quiz_session_id is not None) == (
            "correct",
            0,
            True,
        )
        assert board(app) == {}
    finally:
        app.close()


def test_a_late_decision_lands_on_the_board_of_the_week_of_the_answer(
    app: App, clock: SimulatedClock, alice: Transcript, admin: Transcript
) -> None:
    dispute_wrong_answer(alice)
    clock.advance(timedelta(days=8))
    admin.send("/studybot disputes accept 1")
    assert board(app) == {
        "w:2026-W49": (POINTS, 1),
        "m:2026-12": (POINTS, 1),
        "s:2026-12": (POINTS, 1),  # and its season's
        "all": (POINTS, 1),
    }


def test_the_queue_shows_the_oldest_open_disputes_first_and_counts_the_rest(
    app: App, clock: SimulatedClock, admin: Transcript
) -> None:
    for i in range(7):
        chat = person(app, f"user{i}")
        chat.send("/daily")
        chat.send("/answer B")
        chat.send(f"/dispute number {i}")
    head, *cards = admin.send("/studybot disputes")
    assert "7 open disputes, the first 5 shown" in head.text
    assert [c.card.title.split(" · ")[0] for c in cards] == [f"Dispute #{i}" for i in range(1, 6)]


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(words=st.lists(st.text(min_size=1, max_size=12).filter(str.strip), max_size=4))
def test_any_words_after_studybot_disputes_get_a_reply_and_change_nothing_unless_deciding(
    app: App, alice: Transcript, words: list[str]
) -> None:
    """Whatever follows /studybot disputes, the reply is friendly text and only a real
    decision of dispute #1 writes anything."""
    if not disputes(app):
        dispute_wrong_answer(alice)
    counts = row_counts(app)
    replies = alice.send("/studybot disputes " + " ".join(words))
    assert replies and all(m.text for m in replies)
    decided = [d for d in disputes(app) if d.status != "open"]
    if not decided:
        assert row_counts(app) == counts


# -- what is done with decided disputes --------------------------------------------------------


def test_accepted_disputes_export_as_labelled_examples_the_grade_command_reads(
    app: App,
    alice: Transcript,
    admin: Transcript,
    db_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    dispute_wrong_answer(alice, "alpha, typed as B")
    bob = person(app, "bob")
    bob.send("/daily")
    bob.send("/answer C")
    bob.send("/dispute gamma is fine too")
    carol = person(app, "carol")
    carol.send("/daily")
    carol.send("/answer D")
    carol.send("/dispute still open")
    admin.send("/studybot disputes accept 1 partial close enough")
    admin.send("/studybot disputes reject 2 gamma is wrong")
    out = tmp_path / "disputes.jsonl"
    assert main(["content", "disputes", "--export", str(out), "--db", db_url]) == 0
    assert "exported 1 accepted dispute to" in capsys.readouterr().out
    (line,) = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert line["id"] == DAILY.id and line["answer"] == "B"
    assert (line["label"], line["score"]) == ("partial", 0.5)
    assert (line["graded"], line["graded_score"], line["grader"]) == (
        "incorrect",
        0.0,
        GRADER_VERSION,
    )
    assert (line["reason"], line["note"]) == ("alpha, typed as B", "close enough")
    assert "alice" not in json.dumps(line)  # no user is named
    pack = tmp_path / "pack.yaml"
    pack.write_text(
        yaml.safe_dump({"pack": "test", "title": "Test", "questions": [DAILY_RAW]}),
        encoding="utf-8",
    )
    assert main(["grade", "--pack", str(pack), "--jsonl", str(out)]) == 0
    (graded,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert graded["label"] == "partial" and graded["verdict"] == "incorrect"


def test_the_export_of_a_letter_grades_outside_the_bot_as_the_bot_graded_it(
    shuffled_app: App,
    db_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """alice's A was delta as her post showed it; the pack's A is alpha, the right answer.
    The export writes the pack's letter of delta, so `grade --jsonl` grades it wrong too."""
    shown = dispute_pack_letter_a(shuffled_app)
    person(shuffled_app, "ada").send("/studybot disputes accept 1 partial")
    packs = tmp_path / "packs"
    packs.mkdir()
    pack = packs / "test.yaml"
    pack.write_text(
        yaml.safe_dump({"pack": "test", "title": "Test", "questions": [SHUFFLED_RAW]}),
        encoding="utf-8",
    )
    monkeypatch.setenv("STUDYBOT_PACKS", str(packs))  # the bank the bot showed it from
    out = tmp_path / "disputes.jsonl"
    assert main(["content", "disputes", "--export", str(out), "--db", db_url]) == 0
    capsys.readouterr()
    (line,) = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    delta = "ABCD"[SHUFFLED.choices.index(shown.choices[0])]
    assert (line["answer"], line["typed"], line["label"]) == (delta, "A", "partial")
    assert line["choices_shown"] == list(shown.choices)
    assert main(["grade", "--pack", str(pack), "--jsonl", str(out)]) == 0
    (graded,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert graded["verdict"] == "incorrect" and graded["graded"] == "incorrect"
    assert "The answer is A) alpha" in graded["feedback"]


def test_the_export_says_so_in_one_line_when_the_packs_do_not_load(
    app: App,
    alice: Transcript,
    admin: Transcript,
    db_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    dispute_wrong_answer(alice)
    admin.send("/studybot disputes accept 1")
    monkeypatch.setenv("STUDYBOT_PACKS", str(tmp_path / "no-such-dir"))
    out = tmp_path / "x.jsonl"
    assert main(["content", "disputes", "--export", str(out), "--db", db_url]) == 2
    err = capsys.readouterr().err
    assert "cannot load the question packs" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_the_export_of_a_database_that_is_not_there_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = f"sqlite:///{tmp_path / 'none.db'}"
    out = tmp_path / "x.jsonl"
    assert main(["content", "disputes", "--export", str(out), "--db", missing]) == 2
    assert "nothing to export" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "none.db").exists()


def test_a_regrade_keeps_the_grade_an_admin_gave(
    app: App, alice: Transcript, admin: Transcript, clock: SimulatedClock
) -> None:
    dispute_wrong_answer(alice)
    admin.send("/studybot disputes accept 1")
    report = regrade_attempts(app.session_factory, QuestionBank([DAILY]), clock, everything=True)
    assert (report.seen, report.disputed, report.regraded) == (1, 1, 0)
    (attempt,) = attempts(app)
    assert (attempt.verdict, attempt.grader_version) == ("correct", "dispute#1")
