"""Disputes: when a grade is wrong anyway.

A user disputes the grade of one of their answers: the Dispute button of a grade reply names
its attempt (``dispute:<attempt id>``, then a form for the reason), and ``/dispute [REASON]``
takes their latest graded answer. Workspace admins review the queue (``/studybot
disputes``: the question, the answer, the grade with its reasons, and the user's reason) and
accept a dispute, which re-grades the attempt as correct or partial, or reject it with a
note. Either way the user gets a DM; ``/dispute status`` shows where their disputes stand.

Rules
- One dispute per attempt (a unique constraint keeps it so under concurrency), of the acting
  user's own answer, and only of an answer not graded correct already. Mock interview rounds
  are judged by the interviewer's votes and their scorecard, so they cannot be disputed.
- Accepting re-grades the attempt: correct is 100%; partial keeps the grade's score when it
  was at least half, else 50%. The new verdict must be better than the old one. The attempt
  keeps its grade history (one more ``attempt_grade`` row, grader ``dispute#<id>``).
- Points follow the rules of what an answer earns (``bot.core.answers``): the scored answer
  to a daily prompt gets the difficulty points of its new score, added to the boards of the
  week and month it was answered in (a first-time earner becomes board activity then);
  practice, quiz, live and mock answers earned no points by their grade and earn none by a
  dispute. The streak counts every real answer, right or wrong, so it already counted this
  one and a re-grade leaves it as it is.
- ``accept ID [correct|partial] [NOTE]``: a first word that reads like a verdict mistyped
  ("parital") is questioned, not taken for the start of a note under a full grade.
- Anything wrong (no graded answer, a second dispute, a non-admin deciding, an unknown id, a
  decided dispute, a mistyped verdict) is a UserError: a friendly reply, and the transaction
  writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Protocol

from rapidfuzz import fuzz

from bot.core.answers import DISPUTE
from bot.core.context import Context
from bot.core.daily.answering import VERDICT_MARK, points_for
from bot.core.display import choice_lines, displayed, seed_of
from bot.core.errors import UserError
from bot.core.grading import Grade, Verdict
from bot.core.leaderboard import LEADERBOARD, board_keys
from bot.core.messages import OUTBOX, Button, ButtonStyle, Card, Delivery, Form, Outgoing, say
from bot.core.model import USERS, Attempt, User, Workspace
from bot.core.numbers import MAX_ROW_ID, whole_number
from bot.core.ports import Port

OPEN: Final = "open"
ACCEPTED: Final = "accepted"
REJECTED: Final = "rejected"
STATUSES: Final = (OPEN, ACCEPTED, REJECTED)
REVIEW: Final = "disputes"  # the action prefix of the admins' buttons
PARTIAL_SCORE: Final = 0.5
MAX_TEXT: Final = 1000  # a reason or a note
SHOWN: Final = 5  # disputes shown by one /studybot disputes
STATUS_SHOWN: Final = 10
RANK: Final = {Verdict.INCORRECT.value: 0, Verdict.PARTIAL.value: 1, Verdict.CORRECT.value: 2}
VERDICT_WORDS: Final = (Verdict.CORRECT.value, Verdict.PARTIAL.value)  # what accept takes
VERDICT_LIKE: Final = 75  # rapidfuzz ratio from which a word reads as a verdict mistyped

DISPUTE_USAGE: Final = (
    "Usage: /dispute [REASON] disputes the grade of your latest graded answer · "
    "/dispute status shows your disputes"
)
REVIEW_USAGE: Final = (
    "Usage: /studybot disputes [open|accepted|rejected|all] · "
    "/studybot disputes accept ID [correct|partial] [NOTE] · "
    "/studybot disputes reject ID NOTE"
)


@dataclass(frozen=True, slots=True)
class Dispute:
    """A dispute, with what its attempt's grade was when it was filed."""

    id: int
    workspace_id: int
    attempt_id: int
    user_id: int
    user_name: str
    question_id: str
    answer: str
    reason: str
    status: str
    verdict_before: str
    score_before: float
    feedback_before: str
    grader_before: str
    created_at: datetime
    resolved_at: datetime | None = None
    resolved_by: int | None = None
    verdict_after: str | None = None
    score_after: float | None = None
    note: str = ""
    daily_prompt_id: int | None = None  # the post or session the answer answered, whose
    quiz_session_id: int | None = None  # order of the choices the user saw (bot.core.display)

    @property
    def shown_with(self) -> str | None:
        """The seed of the order the disputed answer's choices were shown in."""
        return seed_of(self.daily_prompt_id, self.quiz_session_id)


@dataclass(frozen=True, slots=True)
class Regrade:
    """What an accepted dispute writes on its attempt."""

    score: float
    verdict: str
    points: int
    feedback: str
    grader: str
    at: datetime


class DisputeRepository(Protocol):
    def latest_attempt(self, user: User) -> Attempt | None:
        """The user's most recent attempt (by answer time, then id)."""
        ...

    def attempt(self, workspace: Workspace, attempt_id: int) -> Attempt | None:
        """An attempt of the workspace, with the feedback of its latest grade."""
        ...

    def add(self, attempt: Attempt, reason: str, now: datetime) -> Dispute | None:
        """File a dispute of ``attempt`` by its user; None when it is disputed already."""
        ...

    def get(self, workspace: Workspace, dispute_id: int) -> Dispute | None: ...

    def of_attempt(self, attempt: Attempt) -> Dispute | None: ...

    def listed(self, workspace: Workspace, statuses: Sequence[str], limit: int) -> list[Dispute]:
        """The workspace's disputes in ``statuses``: open ones oldest first, others newest
        first."""
        ...

    def count(self, workspace: Workspace, statuses: Sequence[str]) -> int: ...

    def of_user(self, user: User, limit: int) -> list[Dispute]:
        """The user's disputes, newest first."""
        ...

    def resolve(
        self,
        dispute: Dispute,
        status: str,
        by: User,
        note: str,
        now: datetime,
        regrade: Regrade | None = None,
    ) -> Dispute | None:
        """Decide an open dispute (and re-grade its attempt when ``regrade`` is given); None
        when it was decided meanwhile."""
        ...


DISPUTES = Port[DisputeRepository]("disputes")


# -- the user's side ---------------------------------------------------------------------------


def _reply(ctx: Context, card: Card) -> Outgoing:
    return Outgoing(Delivery.PRIVATE, ctx.user.external_id, card, channel=ctx.channel.external_id)


def _modal(ctx: Context, form: Form) -> Outgoing:
    card = Card(title=form.title)
    return Outgoing(
        Delivery.MODAL, ctx.user.external_id, card, channel=ctx.channel.external_id, form=form
    )


def _text(ctx: Context, text: str) -> list[Outgoing]:
    return [say(ctx.user.external_id, text, channel=ctx.channel.external_id)]


def _clean(text: str, what: str) -> str:
    text = " ".join(text.split())
    if len(text) > MAX_TEXT:
        raise UserError(f"That {what} is too long: keep it under {MAX_TEXT} characters.")
    return text


def _grade_text(verdict: str, score: float) -> str:
    return f"{VERDICT_MARK.get(verdict, '')} {verdict.capitalize()} ({round(score * 100)}%)"


def _prompt_of(ctx: Context, question_id: str, limit: int = 80) -> str:
    question = ctx.bank.get(question_id)
    text = question.prompt if question is not None else question_id
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_mock(attempt: Attempt) -> bool:
    """A mock round's attempt: it answers neither a daily prompt nor a quiz."""
    return attempt.daily_prompt_id is None and attempt.quiz_session_id is None


def dispute_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/dispute [REASON]`` (the latest graded answer) and ``/dispute status``."""
    words = args.split()
    if words and words[0].lower() in ("help", "?") and len(words) == 1:
        return _text(ctx, DISPUTE_USAGE)
    if words and words[0].lower() == "status" and len(words) == 1:
        return dispute_status(ctx)
    reason = _clean(args, "reason")
    attempt = ctx.uow[DISPUTES].latest_attempt(ctx.user)
    if attempt is None:
        raise UserError(
            "You have no graded answer to dispute yet: answer a question first "
            "(/daily or /quiz), then /dispute if the grade is wrong."
        )
    if is_mock(attempt):
        raise UserError(
            "Your latest answer was a mock interview round: your interviewer's votes and the "
            "scorecard judge those, so it cannot be disputed. Use the Dispute button of an "
            "earlier grade instead."
        )
    return file_dispute(ctx, attempt, reason)


def file_dispute(ctx: Context, attempt: Attempt, reason: str) -> list[Outgoing]:
    """File the acting user's dispute of ``attempt``; UserError when it cannot be."""
    if attempt.user_id != ctx.user.id or attempt.id is None:
        raise UserError("That button is no longer valid.")
    existing = ctx.uow[DISPUTES].of_attempt(attempt)
    if existing is not None:
        raise UserError(_already(existing))
    if attempt.verdict == Verdict.CORRECT.value:
        raise UserError("That answer is graded correct already: there is nothing to dispute.")
    dispute = ctx.uow[DISPUTES].add(attempt, reason, ctx.now)
    if dispute is None:  # another dispute of it was filed meanwhile
        raise UserError("You already disputed that answer. /dispute status shows where it stands.")
    lines = [
        f"Dispute #{dispute.id} filed: your answer to “{_prompt_of(ctx, attempt.question_id)}” "
        f"({_grade_text(attempt.verdict, attempt.score)}).",
        "A workspace admin will review it, and I'll message you when they decide. "
        "/dispute status shows where it stands.",
    ]
    if not reason:
        lines.append("No reason given: an admin decides from your answer alone.")
    return [_reply(ctx, Card(title="Dispute filed", blocks=tuple(lines)))]


def _already(dispute: Dispute) -> str:
    return (
        f"You already disputed that answer (dispute #{dispute.id}, {dispute.status}): one "
        "dispute per answer. /dispute status shows where it stands."
    )


def dispute_status(ctx: Context) -> list[Outgoing]:
    disputes = ctx.uow[DISPUTES].of_user(ctx.user, STATUS_SHOWN)
    if not disputes:
        return _text(ctx, "You have no disputes. /dispute [REASON] disputes your latest grade.")
    lines = []
    for d in disputes:
        line = f"#{d.id} · {d.status} · “{_prompt_of(ctx, d.question_id, 60)}”"
        if d.status == ACCEPTED and d.verdict_after is not None and d.score_after is not None:
            line += f" · now {_grade_text(d.verdict_after, d.score_after)}"
        elif d.status == OPEN:
            line += (
                f" · filed {d.created_at.astimezone(ctx.user_zone):%d %b}, waiting for an admin"
            )
        if d.note:
            line += f" · note: {d.note}"
        lines.append(line)
    return [_reply(ctx, Card(title="Your disputes", blocks=("\n".join(lines),)))]


def dispute_action(ctx: Context, parts: list[str], text: str) -> list[Outgoing]:
    """A grade's Dispute button (``dispute:<attempt>``: a form for the reason) and the form
    (``dispute:<attempt>:submit``)."""
    attempt_id = whole_number(parts[1], high=MAX_ROW_ID) if len(parts) in (2, 3) else None
    if attempt_id is None or parts[2:] not in ([], ["submit"]):
        raise UserError("That button is no longer valid.")
    attempt = ctx.uow[DISPUTES].attempt(ctx.workspace, attempt_id)
    if attempt is None or attempt.user_id != ctx.user.id:
        raise UserError("That button is no longer valid.")
    if len(parts) == 3:
        return file_dispute(ctx, attempt, _clean(text, "reason"))
    existing = ctx.uow[DISPUTES].of_attempt(attempt)
    if existing is not None:
        raise UserError(_already(existing))
    if attempt.verdict == Verdict.CORRECT.value:
        raise UserError("That answer is graded correct already: there is nothing to dispute.")
    form = Form(
        title="Dispute this grade",
        label="Why is the grade wrong? (optional)",
        action=f"{DISPUTE}:{attempt.id}:submit",
        placeholder="e.g. I named the right mechanism in other words",
    )
    return [_modal(ctx, form)]


# -- the admins' side --------------------------------------------------------------------------


def _require_admin(ctx: Context) -> None:
    if not ctx.is_admin:
        raise UserError("Only workspace admins can review disputes. /dispute status shows yours.")


def _dispute_id(word: str) -> int:
    number = whole_number(word.lstrip("#"), high=MAX_ROW_ID)
    if number is None:
        raise UserError(f"“{word[:20]}” is not a dispute number. {REVIEW_USAGE}")
    return number


def _get(ctx: Context, dispute_id: int) -> Dispute:
    dispute = ctx.uow[DISPUTES].get(ctx.workspace, dispute_id)
    if dispute is None:
        raise UserError(f"There is no dispute #{dispute_id}. /studybot disputes lists them.")
    return dispute


def review_command(ctx: Context, words: Sequence[str]) -> list[Outgoing]:
    """``/studybot disputes …`` (admins): the queue, ``accept`` and ``reject``."""
    _require_admin(ctx)
    verb = words[0].lower() if words else OPEN
    rest = list(words[1:])
    if verb in (*STATUSES, "all"):
        if rest:
            raise UserError(REVIEW_USAGE)
        return review_queue(ctx, STATUSES if verb == "all" else (verb,))
    if verb == "accept":
        if not rest:
            raise UserError(REVIEW_USAGE)
        dispute_id = _dispute_id(rest[0])
        verdict, note = _verdict_and_note(dispute_id, rest[1:])
        return accept(ctx, _get(ctx, dispute_id), verdict, _clean(note, "note"))
    if verb == "reject":
        if not rest:
            raise UserError(REVIEW_USAGE)
        dispute_id = _dispute_id(rest[0])
        return reject(ctx, _get(ctx, dispute_id), _clean(" ".join(rest[1:]), "note"))
    raise UserError(f"I don't know /studybot disputes {verb[:30]}. {REVIEW_USAGE}")


def _verdict_and_note(dispute_id: int, words: Sequence[str]) -> tuple[str, str]:
    """``[correct|partial] [NOTE]`` after ``accept ID``: the verdict (correct when none is
    named) and the note. A first word that reads like a verdict mistyped ("parital",
    "partially", "corect", "part") is questioned with a UserError, so that nothing is
    decided: a full grade given by a typo could not be taken back."""
    if not words:
        return Verdict.CORRECT.value, ""
    first = words[0].casefold().strip(".,;:!?")
    if first in VERDICT_WORDS:
        return first, " ".join(words[1:])
    guess = next((v for v in VERDICT_WORDS if _reads_like(first, v)), None)
    if guess is not None:
        raise UserError(
            f"Did you mean {guess}? “{words[0][:20]}” is no verdict, and nothing is decided "
            f"yet: /studybot disputes accept {dispute_id} {guess} [NOTE] (or correct); a note "
            f"that starts with that word goes after the verdict "
            f"(/studybot disputes accept {dispute_id} correct {words[0][:20]} …)."
        )
    return Verdict.CORRECT.value, " ".join(words)


def _reads_like(word: str, verdict: str) -> bool:
    """``word`` is ``verdict`` mistyped, shortened or inflected ("parital", "part",
    "partially")."""
    return (
        fuzz.ratio(word, verdict) >= VERDICT_LIKE
        or (len(word) >= 3 and verdict.startswith(word))
        or word.startswith(verdict)
    )


def dispute_card(ctx: Context, dispute: Dispute) -> Card:
    """One dispute as an admin reviews it; an open one carries its decision buttons. A choice
    question's choices, and the expected letter, are in the order the user saw them, the
    order their answer's letters and the grade's feedback speak of."""
    question = displayed(ctx.bank.get(dispute.question_id), dispute.shown_with)
    answer = dispute.answer if len(dispute.answer) <= 600 else dispute.answer[:599] + "…"
    blocks = [
        f"Question ({dispute.question_id}): "
        + (question.prompt if question is not None else "no longer in the bank"),
        *((choice_lines(question),) if question is not None and question.choices else ()),
        f"Answer: {answer}",
        f"Grade: {_grade_text(dispute.verdict_before, dispute.score_before)} "
        f"by grader {dispute.grader_before}. {dispute.feedback_before}".strip(),
        f"Reason: {dispute.reason or '(none given)'}",
    ]
    if question is not None:
        blocks.append(f"Expected: {question.answer_text}")
    if dispute.status != OPEN:
        decided = f"Decision: {dispute.status}"
        if dispute.verdict_after is not None and dispute.score_after is not None:
            decided += f", now {_grade_text(dispute.verdict_after, dispute.score_after)}"
        if dispute.note:
            decided += f". Note: {dispute.note}"
        blocks.append(decided)
    buttons: tuple[Button, ...] = ()
    if dispute.status == OPEN:
        buttons = (
            Button("Accept: correct", f"{REVIEW}:{dispute.id}:correct", ButtonStyle.PRIMARY),
            Button("Accept: partial", f"{REVIEW}:{dispute.id}:partial"),
            Button("Reject", f"{REVIEW}:{dispute.id}:reject", ButtonStyle.DANGER),
        )
    return Card(
        title=f"Dispute #{dispute.id} · {dispute.user_name} · {dispute.status}",
        blocks=tuple(blocks),
        buttons=buttons,
        footer=f"Filed {dispute.created_at.astimezone(ctx.user_zone):%Y-%m-%d %H:%M %Z}",
    )


def review_queue(ctx: Context, statuses: Sequence[str]) -> list[Outgoing]:
    disputes = ctx.uow[DISPUTES].listed(ctx.workspace, statuses, SHOWN)
    which = statuses[0] if len(statuses) == 1 else ""
    if not disputes:
        return _text(ctx, f"No {which} disputes in this workspace.".replace("  ", " "))
    total = ctx.uow[DISPUTES].count(ctx.workspace, statuses)
    head = " ".join(w for w in (str(total), which, "dispute" + ("s" if total != 1 else "")) if w)
    if total > len(disputes):
        head += f", the first {len(disputes)} shown; decide these to see more"
    head += (
        ". Decide with the buttons, or /studybot disputes accept ID [correct|partial] [NOTE] "
        "and /studybot disputes reject ID NOTE."
    )
    return [
        _reply(ctx, Card(title="Disputes", blocks=(head,))),
        *(_reply(ctx, dispute_card(ctx, d)) for d in disputes),
    ]


def review_action(ctx: Context, parts: list[str], text: str) -> list[Outgoing]:
    """The queue's buttons: ``disputes:<id>:correct|partial|reject``, and the reject form
    (``disputes:<id>:note``)."""
    dispute_id = whole_number(parts[1], high=MAX_ROW_ID) if len(parts) == 3 else None
    if dispute_id is None:
        raise UserError("That button is no longer valid.")
    _require_admin(ctx)
    dispute = _get(ctx, dispute_id)
    what = parts[2]
    if what in (Verdict.CORRECT.value, Verdict.PARTIAL.value):
        return accept(ctx, dispute, what, "")
    if what == "note":
        return reject(ctx, dispute, _clean(text, "note"))
    if what == "reject":
        _still_open(dispute)
        form = Form(
            title=f"Reject dispute #{dispute.id}",
            label="A note for the user: why the grade stands",
            action=f"{REVIEW}:{dispute.id}:note",
        )
        return [_modal(ctx, form)]
    raise UserError("That button is no longer valid.")


def _still_open(dispute: Dispute) -> None:
    if dispute.status != OPEN:
        raise UserError(f"Dispute #{dispute.id} is already {dispute.status}.")


def accept(ctx: Context, dispute: Dispute, verdict: str, note: str) -> list[Outgoing]:
    """Re-grade the disputed attempt as ``verdict`` (correct or partial); points follow."""
    _still_open(dispute)
    attempt = ctx.uow[DISPUTES].attempt(ctx.workspace, dispute.attempt_id)
    if attempt is None:  # the attempt cascades with the dispute; this cannot happen
        raise UserError(f"Dispute #{dispute.id} has no answer any more.")
    if RANK[verdict] <= RANK.get(attempt.verdict, 0):
        raise UserError(
            f"Dispute #{dispute.id}'s answer is graded {attempt.verdict} already: accept it "
            "as correct, or reject it."
        )
    score = 1.0 if verdict == Verdict.CORRECT.value else max(attempt.score, PARTIAL_SCORE)
    question = ctx.bank.get(attempt.question_id)
    points = attempt.points
    if attempt.scored:
        if question is None:
            raise UserError(
                f"Dispute #{dispute.id}'s question is no longer in the bank, so its points "
                "cannot be worked out: restore the question, or reject the dispute."
            )
        grade = Grade(score, Verdict(verdict), "", grader=f"dispute#{dispute.id}")
        points = max(points, points_for(question, grade))
    feedback = f"Re-graded {verdict} by {ctx.user.display} (dispute #{dispute.id})." + (
        f" {note}" if note else ""
    )
    now = ctx.now
    regrade = Regrade(score, verdict, points, feedback, f"dispute#{dispute.id}", now)
    decided = ctx.uow[DISPUTES].resolve(dispute, ACCEPTED, ctx.user, note, now, regrade)
    if decided is None:
        raise UserError(f"Dispute #{dispute.id} was decided meanwhile.")
    gained = points - attempt.points
    if gained > 0:
        keys = board_keys(ctx.uow, ctx.workspace, attempt.answered_at)
        # The answer becomes board activity when it earns points for the first time.
        ctx.uow[LEADERBOARD].add(
            ctx.workspace.id, attempt.user_id, keys, gained, 0 if attempt.points else 1
        )
    told = [
        f"Your dispute #{dispute.id} was accepted: your answer to "
        f"“{_prompt_of(ctx, attempt.question_id)}” is now graded {_grade_text(verdict, score)}."
    ]
    if gained > 0:
        told.append(f"+{gained} points.")
    if note:
        told.append(f"Note from {ctx.user.display}: {note}")
    _tell(ctx, dispute, Card(title="Dispute accepted", blocks=(" ".join(told),)))
    said = (
        f"Dispute #{dispute.id} (by {dispute.user_name}) accepted: the answer is now "
        f"{_grade_text(verdict, score)}" + (f", +{gained} points." if gained > 0 else ".")
    )
    return _text(ctx, said + " They have been told.")


def reject(ctx: Context, dispute: Dispute, note: str) -> list[Outgoing]:
    """Reject an open dispute with a note for its user; the grade stands."""
    _still_open(dispute)
    if not note:
        raise UserError(
            f"Say why the grade stands: /studybot disputes reject {dispute.id} NOTE "
            "(the user sees the note)."
        )
    decided = ctx.uow[DISPUTES].resolve(dispute, REJECTED, ctx.user, note, ctx.now)
    if decided is None:
        raise UserError(f"Dispute #{dispute.id} was decided meanwhile.")
    _tell(
        ctx,
        dispute,
        Card(
            title="Dispute rejected",
            blocks=(
                f"Your dispute #{dispute.id} was rejected: the grade of your answer to "
                f"“{_prompt_of(ctx, dispute.question_id)}” stands "
                f"({_grade_text(dispute.verdict_before, dispute.score_before)}).",
                f"Note from {ctx.user.display}: {note}",
            ),
        ),
    )
    return _text(
        ctx, f"Dispute #{dispute.id} (by {dispute.user_name}) rejected; they have been told."
    )


def _tell(ctx: Context, dispute: Dispute, card: Card) -> None:
    """DM the dispute's user the decision, through the outbox (sent once, after commit)."""
    user = ctx.uow[USERS].get(ctx.workspace, dispute.user_id)
    if user is None:  # users cascade with their disputes; this cannot happen
        return
    key = f"dispute:{dispute.id}:decided"
    message = Outgoing(Delivery.DM, user.external_id, card, key=key)
    ctx.uow[OUTBOX].add(ctx.workspace, ctx.workspace.platform, message, key, ctx.now)
