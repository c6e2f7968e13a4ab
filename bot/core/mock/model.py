"""Mock interviews: the records the use cases see and the repository they reach storage by.

A mock moves through these statuses::

    proposed ─accept by both─▶ scheduled ─start─▶ running ─last round─▶ (debrief ─▶) done
        │                          │  │                │
        ├─decline─▶ declined       │  └─too late─▶ missed (can be rescheduled)
        └─start time passes─▶ expired      │           ├─cancel─▶ cancelled
                                           │           └─the bot was down past the grace─▶ abandoned
                                           └─cancel─▶ cancelled

``next_at`` is the instant of the mock's next clock-driven step (its start, the end of
the current round's time box, the end of the debrief wait); the due job looks only at it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from bot.core.model import Channel, User, Workspace
from bot.core.ports import Port

PROPOSED, SCHEDULED, RUNNING, DEBRIEF, DONE = "proposed", "scheduled", "running", "debrief", "done"
CANCELLED, DECLINED, EXPIRED, MISSED = "cancelled", "declined", "expired", "missed"
ABANDONED = "abandoned"  # stopped mid-way: the bot was down longer than the grace
ACTIVE = (PROPOSED, SCHEDULED, RUNNING, DEBRIEF)  # occupies the participants' time
UPCOMING = (PROPOSED, SCHEDULED)  # can still be rescheduled (so can MISSED)
PAST = (DONE, CANCELLED, DECLINED, EXPIRED, MISSED, ABANDONED)

TECHNICAL, PRODUCT, BEHAVIORAL = "technical", "product", "behavioral"
LOOP = "loop"
# The rounds of each format, in order: a real loop runs technical deep-dives first, then
# product / cross-functional rounds, and ends with the hiring manager.
FORMATS: dict[str, tuple[str, ...]] = {
    LOOP: (TECHNICAL, TECHNICAL, PRODUCT, PRODUCT, BEHAVIORAL),
    TECHNICAL: (TECHNICAL, TECHNICAL, TECHNICAL),
    PRODUCT: (PRODUCT, PRODUCT, PRODUCT),
    BEHAVIORAL: (BEHAVIORAL, BEHAVIORAL, BEHAVIORAL),
}
ROUND_TITLES = {
    TECHNICAL: "Technical deep-dive",
    PRODUCT: "Product / cross-functional",
    BEHAVIORAL: "Hiring manager (behavioural)",
}
# The bank topics each kind of round draws its open questions from.
ROUND_TOPICS: dict[str, tuple[str, ...]] = {
    TECHNICAL: (
        "mig",
        "mps",
        "time-slicing",
        "vgpu",
        "cuda",
        "interconnect",
        "kubernetes",
        "llm-training",
        "inference-sharing",
        "system-design",
    ),
    PRODUCT: ("product",),
    BEHAVIORAL: ("behavioral",),
}


def format_topics(fmt: str) -> tuple[str, ...]:
    """The bank topics a mock of ``fmt`` draws its rounds from, in round order."""
    topics: list[str] = []
    for kind in FORMATS.get(fmt, FORMATS[LOOP]):
        topics.extend(t for t in ROUND_TOPICS[kind] if t not in topics)
    return tuple(topics)


# Interviewer votes, weakest first.
VOTES: dict[str, str] = {"sn": "Strong no", "n": "No", "y": "Yes", "sy": "Strong yes"}
VOTE_VALUE = {"sn": 1, "n": 2, "y": 3, "sy": 4}

ANSWERED, TIMED_OUT, STOPPED = "answered", "timed_out", "stopped"
WEAK = "weak"  # the one focus of /mock schedule … focus=weak


@dataclass(frozen=True, slots=True)
class Mock:
    id: int
    workspace_id: int
    candidate_id: int
    interviewer_id: int | None
    channel_id: int | None
    format: str
    status: str
    starts_at: datetime
    round_minutes: int
    thread_ref: str | None
    in_dm: bool
    position: int
    next_at: datetime | None
    candidate_accepted_at: datetime | None
    interviewer_accepted_at: datetime | None
    started_at: datetime | None
    ended_at: datetime | None
    sequence: int
    declined_by: int | None
    created_at: datetime
    focus: str | None = None  # WEAK: the rounds come from the candidate's weakest topics

    @property
    def kinds(self) -> tuple[str, ...]:
        return FORMATS.get(self.format, FORMATS[LOOP])

    @property
    def rounds_total(self) -> int:
        return len(self.kinds)

    @property
    def duration(self) -> timedelta:
        return timedelta(minutes=self.round_minutes * self.rounds_total)

    @property
    def planned_end(self) -> datetime:
        return self.starts_at + self.duration

    @property
    def has_interviewer(self) -> bool:
        """A peer who accepted: they get the rubric and vote."""
        return self.interviewer_id is not None and self.interviewer_accepted_at is not None

    def participants(self) -> tuple[int, ...]:
        return (
            (self.candidate_id,)
            if self.interviewer_id is None
            else (self.candidate_id, self.interviewer_id)
        )

    def accepted(self, user_id: int) -> bool:
        if user_id == self.candidate_id:
            return self.candidate_accepted_at is not None
        return user_id == self.interviewer_id and self.interviewer_accepted_at is not None


@dataclass(frozen=True, slots=True)
class NewMock:
    candidate: User
    interviewer: User | None
    channel: Channel
    in_dm: bool
    format: str
    status: str
    starts_at: datetime
    round_minutes: int
    candidate_accepted: bool
    interviewer_accepted: bool
    focus: str | None = None


@dataclass(frozen=True, slots=True)
class Round:
    id: int
    mock_id: int
    position: int
    kind: str
    topic: str
    question_id: str
    started_at: datetime | None
    ends_at: datetime | None
    answer: str | None  # while the round is open: what the candidate has written so far
    score: float | None
    verdict: str | None
    matched: tuple[str, ...]
    missed: tuple[str, ...]
    feedback: str
    answered_at: datetime | None
    outcome: str | None
    vote: str | None
    note: str | None

    @property
    def open(self) -> bool:
        return self.outcome is None


@dataclass(frozen=True, slots=True)
class NewRound:
    position: int
    kind: str
    topic: str
    question_id: str


@dataclass(frozen=True, slots=True)
class RoundResult:
    """What an answered or closed round records (compare-and-set on ``outcome IS NULL``)."""

    outcome: str
    at: datetime
    answer: str | None = None
    score: float | None = None
    verdict: str | None = None
    matched: tuple[str, ...] = ()
    missed: tuple[str, ...] = ()
    feedback: str = ""


@dataclass(frozen=True, slots=True)
class Window:
    """A weekly availability window: ``weekdays`` (0 = Monday) from ``start`` to ``end``
    minutes after local midnight in ``timezone``."""

    id: int
    user_id: int
    weekdays: frozenset[int]
    start: int
    end: int
    timezone: str


@dataclass(frozen=True, slots=True)
class DueReminder:
    workspace: Workspace
    mock: Mock
    user: User
    offset_minutes: int
    due_at: datetime


@dataclass(frozen=True, slots=True)
class MockChanges:
    """Fields to change on a mock; ``None`` leaves a field as it is (``clear_next`` empties
    ``next_at``)."""

    status: str | None = None
    starts_at: datetime | None = None
    next_at: datetime | None = None
    clear_next: bool = False
    position: int | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    candidate_accepted: bool | None = None  # True: accepted now; False: acceptance cleared
    interviewer_accepted: bool | None = None
    drop_interviewer: bool = False
    declined_by: int | None = None
    bump_sequence: bool = False


class MockRepository(Protocol):
    """Storage of mock interviews. Every read is scoped by workspace."""

    def add(self, workspace: Workspace, mock: NewMock, now: datetime) -> Mock: ...

    def get(self, workspace: Workspace, mock_id: int, *, lock: bool = False) -> Mock | None:
        """The mock; ``lock`` holds its row until the transaction ends (FOR UPDATE), so a
        reminder or a round cannot be claimed for it meanwhile."""
        ...

    def change(
        self,
        mock: Mock,
        changes: MockChanges,
        now: datetime,
        *,
        expect_status: str | None = None,
        expect_position: int | None = None,
    ) -> Mock | None:
        """Apply ``changes`` if the mock still has the expected status and position
        (compare-and-set); None when another worker or answer moved it first."""
        ...

    def for_user(
        self, workspace: Workspace, user: User, statuses: tuple[str, ...], limit: int = 50
    ) -> list[Mock]:
        """Mocks ``user`` takes part in with one of ``statuses``: upcoming ones soonest
        first, past ones latest first."""
        ...

    def overlapping(
        self,
        workspace: Workspace,
        user_ids: tuple[int, ...],
        start: datetime,
        end: datetime,
        exclude: int | None = None,
    ) -> list[Mock]:
        """Active mocks of any of ``user_ids`` whose time overlaps ``start``..``end``."""
        ...

    def running_for(self, workspace: Workspace, user: User) -> list[Mock]:
        """Running mocks ``user`` takes part in (as candidate or interviewer)."""
        ...

    def thread_ref(self, mock: Mock) -> str | None:
        """The platform id of the mock's opening post, once it was delivered."""
        ...

    def next_due(self) -> datetime | None: ...

    def due(self, now: datetime, limit: int) -> list[tuple[Workspace, Mock]]:
        """Active mocks whose ``next_at`` has come, claimed for this worker."""
        ...

    # rounds
    def add_rounds(self, mock: Mock, rounds: list[NewRound]) -> None: ...

    def rounds(self, mock: Mock) -> list[Round]: ...

    def start_round(self, mock: Mock, position: int, at: datetime, ends_at: datetime) -> None: ...

    def add_to_answer(self, mock: Mock, position: int, text: str) -> Round | None:
        """Add ``text`` as a new line of the open round's answer (what the candidate has
        written so far), in one statement, so that two messages at once both count; None if
        the round was closed already."""
        ...

    def close_round(self, mock: Mock, position: int, result: RoundResult) -> Round | None:
        """Record ``result`` if the round is still open; None if it was closed already."""
        ...

    def vote(self, mock: Mock, position: int, vote: str | None, note: str | None) -> Round:
        """Set the interviewer's vote and/or note of one round (None keeps what is there)."""
        ...

    def question_ids_seen(self, workspace: Workspace, user: User) -> set[str]: ...

    # reminders
    def set_reminders(self, mock: Mock, user: User, due: list[tuple[int, datetime]]) -> None:
        """Replace the user's unsent reminders of ``mock`` with ``due`` (offset, instant)."""
        ...

    def cancel_reminders(self, mock: Mock, user_id: int | None = None) -> int:
        """Cancel unsent reminders (of one user, or all) and withdraw any of their DMs still
        waiting in the outbox; returns how many were stopped."""
        ...

    def next_reminder(self) -> datetime | None: ...

    def claim_reminders(self, now: datetime, limit: int) -> list[DueReminder]:
        """Mark due reminders of scheduled mocks sent and return them, in one transaction
        with the mock's status check (rows locked; SKIP LOCKED on PostgreSQL). A person's
        due reminders of one mock come together, all of them even past ``limit``, so that
        the caller can send just one; reminders of a mock already starting are marked
        sent and not returned."""
        ...

    # availability and pairing
    def windows(self, workspace: Workspace, user: User) -> list[Window]: ...

    def add_window(
        self,
        workspace: Workspace,
        user: User,
        weekdays: frozenset[int],
        start: int,
        end: int,
        timezone: str,
        now: datetime,
    ) -> Window: ...

    def clear_windows(self, workspace: Workspace, user: User) -> int: ...

    def all_windows(self, workspace: Workspace) -> dict[int, list[Window]]: ...

    def pair_counts(self, workspace: Workspace, user: User) -> dict[int, int]:
        """How many mocks ``user`` has had or has with each other person (not cancelled,
        declined or expired)."""
        ...

    def declined(self, workspace: Workspace, user: User, since: datetime) -> set[int]:
        """People who declined a mock with ``user`` since ``since``."""
        ...

    # preferences
    def reminder_offsets(self, user: User) -> list[int] | None: ...

    def set_reminder_offsets(
        self, workspace: Workspace, user: User, offsets: list[int]
    ) -> None: ...


MOCKS = Port[MockRepository]("mocks")
