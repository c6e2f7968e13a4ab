"""The end of a mock: a scorecard per round and a debrief as a hiring committee reads it.

Each round shows its rubric coverage (the grader's weighted share of rubric points the
answer made), the interviewer's vote and note, and what the answer missed. Where no
interviewer voted, the rubric stands in for one (and says so): 80 % coverage or more
reads as a strong yes, the question's pass score as a yes, 35 % as a no, less (or no
answer) as a strong no. The committee's recommendation comes from the votes, as a
committee would weigh them: one strong no sinks a loop, mostly yeses carry it. A mock in
which no round was answered and no interviewer voted has no signal at all (nobody was
there): its card says so, with the questions, and gives no coverage, votes or
recommendation.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from bot.core.bank import QuestionBank
from bot.core.messages import Card, Field
from bot.core.mock.model import ANSWERED, ROUND_TITLES, TIMED_OUT, VOTE_VALUE, VOTES, Mock, Round

STRONG_COVERAGE = 0.8
WEAK_COVERAGE = 0.35


@dataclass(frozen=True, slots=True)
class RoundVerdict:
    round: Round
    vote: str  # a VOTES code
    by_interviewer: bool
    pass_score: float

    @property
    def coverage(self) -> float:
        return self.round.score or 0.0

    @property
    def weak(self) -> bool:
        return VOTE_VALUE[self.vote] <= 2 or self.coverage < self.pass_score


def rubric_vote(round_: Round, pass_score: float) -> str:
    """The rubric's stand-in vote for a round nobody voted on."""
    if round_.outcome != ANSWERED or round_.score is None:
        return "sn"
    if round_.score >= STRONG_COVERAGE:
        return "sy"
    if round_.score >= pass_score:
        return "y"
    if round_.score >= WEAK_COVERAGE:
        return "n"
    return "sn"


def verdicts(rounds: list[Round], bank: QuestionBank) -> list[RoundVerdict]:
    out = []
    for r in rounds:
        question = bank.get(r.question_id)
        pass_score = question.pass_score if question is not None else 0.6
        if r.vote in VOTES:
            out.append(RoundVerdict(r, r.vote, True, pass_score))
        else:
            out.append(RoundVerdict(r, rubric_vote(r, pass_score), False, pass_score))
    return out


def recommendation(votes: list[str]) -> str:
    """Strong hire / Hire / Lean hire / Lean no hire / No hire, from per-round votes."""
    if not votes:
        return "No signal"
    values = [VOTE_VALUE[v] for v in votes]
    mean = sum(values) / len(values)
    strong_no = values.count(1)
    if strong_no >= 2 or mean < 2.0:
        return "No hire"
    if strong_no == 1:
        return "Lean no hire" if mean >= 2.5 else "No hire"
    if mean >= 3.5 and 2 not in values:
        return "Strong hire"
    if mean >= 3.0:
        return "Hire"
    if mean >= 2.5:
        return "Lean hire"
    return "Lean no hire"


def unanswered(rounds: list[Round]) -> bool:
    """Nobody answered a round and no interviewer voted on one: there is nothing to score
    (the candidate was not there), which is no reason for a "No hire"."""
    return bool(rounds) and all(r.outcome != ANSWERED and r.vote not in VOTES for r in rounds)


def mean_coverage(rounds: list[Round]) -> float:
    return sum(r.score or 0.0 for r in rounds) / len(rounds) if rounds else 0.0


def study_next(found: list[RoundVerdict], bank: QuestionBank) -> list[str]:
    """Topics to drill with /quiz, weakest first, and the rubric points missed there."""
    lines: list[str] = []
    seen: set[str] = set()
    weak = sorted((v for v in found if v.weak), key=lambda v: (v.coverage, v.round.position))
    for v in weak:
        topic = v.round.topic
        if topic in seen:
            continue
        seen.add(topic)
        missed = "; ".join(v.round.missed[:3])
        has_drill = any(q.kind != "open" for q in bank.in_topic(topic))
        drill = f"/quiz {topic}" if has_drill else f"/mock schedule WHEN {v.round.kind}"
        lines.append(f"{drill}" + (f" (missed: {missed})" if missed else ""))
    return lines


def debrief(found: list[RoundVerdict], has_interviewer: bool) -> str:
    """A hiring-committee style summary of the votes."""
    if not found:
        return "No rounds were run."
    counts = Counter(v.vote for v in found)
    tally = ", ".join(
        f"{counts[code]} {VOTES[code].lower()}" for code in ("sy", "y", "n", "sn") if counts[code]
    )
    by_interviewer = sum(v.by_interviewer for v in found)
    rounds = f"{len(found)} round{'s' * (len(found) != 1)}"
    if has_interviewer and not by_interviewer:
        source = (
            f" (the interviewer voted on none of the {rounds}: the rubric's reading of each "
            "answer stands in)"
        )
    elif has_interviewer and by_interviewer < len(found):
        source = (
            f" (the interviewer voted on {by_interviewer} of the {rounds}; "
            "the rubric stands in for the rest)"
        )
    elif has_interviewer:
        source = " (interviewer votes)"
    else:
        source = " (no interviewer: the rubric's reading of each answer)"
    parts = [f"Votes: {tally}{source}."]
    best = max(found, key=lambda v: (VOTE_VALUE[v.vote], v.coverage, -v.round.position))
    worst = min(found, key=lambda v: (VOTE_VALUE[v.vote], v.coverage, v.round.position))
    if VOTE_VALUE[best.vote] >= 3:
        parts.append(
            f"Strongest: round {best.round.position + 1} ({best.round.topic}), "
            f"{VOTES[best.vote].lower()}, {round(best.coverage * 100)}% of the rubric."
        )
    if VOTE_VALUE[worst.vote] <= 2:
        parts.append(
            f"Main concern: round {worst.round.position + 1} ({worst.round.topic}), "
            f"{VOTES[worst.vote].lower()}, {round(worst.coverage * 100)}% of the rubric."
        )
    unanswered = [v.round.position + 1 for v in found if v.round.outcome == TIMED_OUT]
    if unanswered:
        rounds = ", ".join(str(n) for n in unanswered)
        parts.append(
            f"No answer within the time box in round{'s' * (len(unanswered) > 1)} {rounds}."
        )
    for v in found:
        if not v.by_interviewer or v.round.outcome != ANSWERED:
            continue
        rubric = rubric_vote(v.round, v.pass_score)
        if abs(VOTE_VALUE[rubric] - VOTE_VALUE[v.vote]) >= 2:
            parts.append(
                f"Calibration: in round {v.round.position + 1} the interviewer voted "
                f"{VOTES[v.vote].lower()} but the answer covered "
                f"{round(v.coverage * 100)}% of the rubric; worth a second look."
            )
    parts.append(f"Recommendation: {recommendation([v.vote for v in found])}.")
    return " ".join(parts)


def scorecard_card(
    mock: Mock,
    rounds: list[Round],
    bank: QuestionBank,
    candidate: str,
    interviewer: str | None,
    to_review: int = 0,
) -> Card:
    """The scorecard of a finished mock; ``to_review`` questions with missed points were
    made due in the candidate's reviews (``bot.core.mock.followup``)."""
    if unanswered(rounds):
        return _unanswered_card(mock, rounds, bank, candidate, interviewer, to_review)
    found = verdicts(rounds, bank)
    fields: list[Field] = []
    for v in found:
        r = v.round
        question = bank.get(r.question_id)
        prompt = question.prompt if question is not None else r.question_id
        short = prompt if len(prompt) <= 90 else prompt[:89] + "…"
        if r.outcome == ANSWERED:
            coverage = f"rubric coverage {round(v.coverage * 100)}% ({r.verdict})"
        elif r.outcome == TIMED_OUT:
            coverage = "no answer within the time box"
        else:
            coverage = "not run"
        vote = (
            f"interviewer: {VOTES[v.vote]}"
            if v.by_interviewer
            else f"rubric reads: {VOTES[v.vote].lower()}"
        )
        lines = [f"“{short}”", f"{coverage} · {vote}"]
        if r.note:
            lines.append(f"note: {r.note}")
        if r.matched:
            lines.append("covered: " + "; ".join(r.matched))
        if r.missed:
            lines.append("missed: " + "; ".join(r.missed))
        fields.append(
            Field(
                f"Round {r.position + 1} · {ROUND_TITLES.get(r.kind, r.kind)} · {r.topic}",
                "\n".join(lines),
                inline=False,
            )
        )
    study = study_next(found, bank)
    if study:
        fields.append(Field("Study next", "\n".join(study), inline=False))
    fields.extend(_reviews(to_review, candidate))
    who = f"{candidate} with {interviewer} interviewing" if interviewer else f"{candidate}, solo"
    return Card(
        title=f"Scorecard · mock #{mock.id} · {mock.format}",
        blocks=(
            f"{who} · mean rubric coverage {round(mean_coverage(rounds) * 100)}%",
            "Debrief: " + debrief(found, interviewer is not None),
        ),
        fields=tuple(fields),
        footer="/mock history lists your past mocks.",
    )


def _reviews(to_review: int, candidate: str) -> list[Field]:
    if not to_review:
        return []
    return [
        Field(
            "Reviews",
            f"{'The question' if to_review == 1 else f'The {to_review} questions'} with "
            f"missed rubric points {'is' if to_review == 1 else 'are'} in {candidate}'s "
            "reviews, due by tomorrow: /review",
            inline=False,
        )
    ]


def _unanswered_card(
    mock: Mock,
    rounds: list[Round],
    bank: QuestionBank,
    candidate: str,
    interviewer: str | None,
    to_review: int,
) -> Card:
    """The end of a mock nobody answered: it says so, with the questions it asked, and
    gives no coverage, votes or recommendation."""
    asked = []
    for r in rounds:
        question = bank.get(r.question_id)
        prompt = question.prompt if question is not None else r.question_id
        asked.append(f"{r.position + 1}. {prompt if len(prompt) <= 90 else prompt[:89] + '…'}")
    who = f"{candidate} with {interviewer} interviewing" if interviewer else f"{candidate}, solo"
    return Card(
        title=f"Mock #{mock.id} · {mock.format} · no answers",
        blocks=(
            f"{who} · none of the {len(rounds)} rounds got an answer, so there is nothing to "
            "score and no recommendation.",
            "Schedule another with /mock schedule WHEN (or /mock pair).",
        ),
        fields=(
            Field("The questions", "\n".join(asked), inline=False),
            *_reviews(to_review, candidate),
        ),
        footer="/mock history lists your past mocks.",
    )
