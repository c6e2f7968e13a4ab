"""What personal quizzes and live rounds share: the request grammar (``[topic] [n]
[difficulty]``), the question card, the answer form, the session a button names.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from rapidfuzz import process, utils

from bot.core.content import Question
from bot.core.context import Context
from bot.core.display import choice_lines
from bot.core.errors import UserError
from bot.core.messages import Button, ButtonStyle, Card, Delivery, Form, Outgoing
from bot.core.numbers import whole_number
from bot.core.quiz.model import OPEN, QUIZZES, QuizSession

DEFAULT_N = 5
MAX_N = 20


DIFFICULTY_WORDS = {"easy": 1, "medium": 2, "hard": 3}
ANY_TOPIC = {"any", "all", "mixed"}
VERDICT_MARK = {"correct": "✅", "partial": "🟡", "incorrect": "❌"}
HOW = {
    "choice": "Pick a letter",
    "multi": "Answer with every right letter, e.g. A, C",
    "numeric": "Answer with a number and its unit",
    "short": "Answer in a word or two",
    "open": "Answer in a few sentences",
}
_INT = re.compile(r"^[+-]?\d+$")


@dataclass(frozen=True, slots=True)
class QuizRequest:
    topic: str | None = None
    n: int = DEFAULT_N
    difficulty: int | None = None


# -- parsing ---------------------------------------------------------------------------------


def _topic_or_error(word: str, topics: list[str], typed: str | None = None) -> str:
    """The topic ``word`` names; a UserError that quotes what was ``typed`` otherwise."""
    by_fold = {t.casefold(): t for t in topics}
    found = by_fold.get(word.casefold())
    if found is not None:
        return found
    match = (
        process.extractOne(word, topics, processor=utils.default_process, score_cutoff=65)
        if topics
        else None
    )
    hint = f" Did you mean {match[0]}?" if match else ""
    typed = word if typed is None else typed
    shown = typed if len(typed) <= 40 else typed[:40] + "…"
    raise UserError(f"There is no topic {shown!r}.{hint} Topics: {', '.join(topics)}.")


def parse_request(args: str, topics: list[str], *, default_n: int = DEFAULT_N) -> QuizRequest:
    """``[topic] [n] [difficulty]`` in any order: the first number is n (1–20), a second
    number or easy/medium/hard the difficulty. Raises UserError for anything else."""
    numbers: list[int] = []
    difficulty: int | None = None
    words: list[str] = []
    any_topic = False
    for token in args.split():
        low = token.lower()
        if _INT.match(token):
            numbers.append(int(token))
        elif low in DIFFICULTY_WORDS:
            if difficulty is not None:
                raise UserError("Give one difficulty: easy, medium or hard.")
            difficulty = DIFFICULTY_WORDS[low]
        elif low in ANY_TOPIC:
            any_topic = True
        else:
            words.append(token)
    if len(numbers) > 2 or (len(numbers) == 2 and difficulty is not None):
        raise UserError("Usage: /quiz [TOPIC] [N] [DIFFICULTY], e.g. /quiz mig 5 hard.")
    n = numbers[0] if numbers else default_n
    if not 1 <= n <= MAX_N:
        raise UserError(f"Pick between 1 and {MAX_N} questions (you asked for {n:,}"[:80] + ").")
    if len(numbers) == 2:
        difficulty = numbers[1]
        if not 1 <= difficulty <= 3:
            raise UserError("Difficulty is 1 (easy), 2 (medium) or 3 (hard).")
    topic = None
    if words:
        if any_topic:
            raise UserError("Give one topic, or none for a mix.")
        topic = _topic_or_error("-".join(words), topics, " ".join(words))
    return QuizRequest(topic, n, difficulty)


def shuffle_key(seed: str, question_id: str) -> str:
    return hashlib.sha256(f"{seed}:{question_id}".encode()).hexdigest()


def question_card(
    question: Question, title: str, action_prefix: str, footer_extra: str = ""
) -> Card:
    """A question with its choices; choice questions get letter buttons, others a form."""
    blocks = [question.prompt]
    buttons: list[Button] = []
    if question.kind in ("choice", "multi"):
        blocks.append(choice_lines(question))
        if question.kind == "choice":
            buttons = [
                Button(chr(ord("A") + i), f"{action_prefix}:{chr(ord('A') + i)}")
                for i in range(len(question.choices))
            ]
    if question.kind != "choice":
        buttons.append(Button("Answer", f"{action_prefix}:form", ButtonStyle.PRIMARY))
    footer = (
        f"{HOW[question.kind]}: /answer TEXT · {question.topic} · difficulty {question.difficulty}"
    )
    if footer_extra:
        footer = f"{footer_extra} · {footer}"
    return Card(title=title, blocks=tuple(blocks), buttons=tuple(buttons), footer=footer)


def private(ctx: Context, card: Card) -> Outgoing:
    return Outgoing(Delivery.PRIVATE, ctx.user.external_id, card, channel=ctx.channel.external_id)


def answer_form(ctx: Context, question: Question | None, action: str) -> list[Outgoing]:
    label = question.prompt[:45] if question else "Your answer"
    form = Form(title="Your answer", label=label, action=action)
    return [
        Outgoing(
            Delivery.MODAL,
            ctx.user.external_id,
            Card(title="Your answer"),
            channel=ctx.channel.external_id,
            form=form,
        )
    ]


def open_session(ctx: Context, raw: str) -> QuizSession:
    number = whole_number(raw)
    if number is None:
        raise UserError("That button is no longer valid.")
    session = ctx.uow[QUIZZES].get(ctx.workspace, number)
    if session is None or session.status != OPEN:
        raise UserError("That quiz is over.")
    return session
