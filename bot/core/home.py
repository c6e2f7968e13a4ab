"""A user's home: their own summary, shown in Slack's App Home tab (and anywhere else that asks).

``home_card(ctx)`` gathers fields from ``SECTIONS``, one function per capability:
answers and all-time points, the streak, reviews due, the next mock, the rank this
week (of the user on the workspace board, and of each of their teams among teams), and
the user's place in the current season. A
section returns only what is true: no field at all when it has nothing to say, never a
made-up number. Each one reads through its capability's own repository or use case, in a
query or two on an index, so that opening the Home tab stays cheap.

Adapters reach it through the ``home`` action (``ACTIONS["home"]``), so it runs
in the same unit of work and with the same workspace scoping as every command.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.core.away import away_note
from bot.core.context import Context
from bot.core.goal import goal_fields
from bot.core.leaderboard import LEADERBOARD, period_of, ranked_teams
from bot.core.messages import Card, Delivery, Field, Outgoing
from bot.core.mock.common import zone_of
from bot.core.mock.model import MOCKS, PROPOSED, UPCOMING, Mock
from bot.core.mock.times import show
from bot.core.model import USERS
from bot.core.reviews import review_plan
from bot.core.seasons import SEASONS, local_span
from bot.core.srs import REVIEWS, describe_due, next_review_at
from bot.core.stats import STATS
from bot.core.streaks import current_streak
from bot.core.teams import TEAMS

Section = Callable[[Context], list[Field]]

NONE_YET = "none yet: type /daily to get today's question"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def answers_section(ctx: Context) -> list[Field]:
    """How many answers the user gave in this workspace (daily, quiz and live), and their
    all-time points: the leaderboard's own aggregate, so daily and live points both count."""
    per_question = ctx.uow[STATS].answers_by_question(ctx.workspace, ctx.user)
    answers = sum(n for _question, n, _score, _correct in per_question)
    if not answers:
        return [Field("Answers", NONE_YET)]
    fields = [Field("Answers", str(answers))]
    board = ctx.uow[LEADERBOARD].row(ctx.workspace, "all", ctx.user)
    if board is not None:
        fields.append(Field("Points", str(board.points)))
    return fields


def streak_section(ctx: Context) -> list[Field]:
    """The current and longest streak and the freezes held (missed days settled first)."""
    state = current_streak(ctx.uow, ctx.user, ctx.now)
    if state.longest == 0:
        return []
    running = f"🔥 {_plural(state.current, 'day')}" if state.current else "none running"
    value = (
        f"{running} · longest {_plural(state.longest, 'day')} · "
        f"❄ {_plural(state.freezes, 'freeze')} held"
    )
    fields = [Field("Streak", value)]
    note = away_note(ctx.uow, ctx.user, ctx.now.astimezone(ctx.user_zone).date())
    if note:
        fields.append(Field("Time away", note))
    return fields


def reviews_section(ctx: Context) -> list[Field]:
    """Spaced-repetition cards due now; when none is, when the next one falls due."""
    cards = ctx.uow[REVIEWS].for_user(ctx.workspace, ctx.user)
    plan = review_plan(ctx, ctx.user, ctx.user_zone, cards=cards)
    if plan.due:
        return [Field("Reviews due", f"{plan.due} now: type /review")]
    following = next_review_at(plan, cards, ctx.now, ctx.user_zone)
    if following is None:
        return []
    when = describe_due(following, ctx.now, ctx.user_zone)
    return [Field("Reviews due", f"none now · next {when}")]


def _mock_role(ctx: Context, mock: Mock) -> str:
    """Who the user meets in ``mock``, from their side of it."""
    if mock.candidate_id == ctx.user.id:
        if mock.interviewer_id is None:
            return "solo"
        peer = ctx.uow[USERS].get(ctx.workspace, mock.interviewer_id)
        role = f"with {peer.display if peer else 'a peer'}"
        return role if mock.has_interviewer else f"{role} (not accepted yet)"
    candidate = ctx.uow[USERS].get(ctx.workspace, mock.candidate_id)
    role = f"you interview {candidate.display if candidate else 'a peer'}"
    return role if mock.accepted(ctx.user.id) else f"{role} (accept: /mock accept {mock.id})"


def mock_section(ctx: Context) -> list[Field]:
    """The user's next mock, as candidate or interviewer: its time in the user's zone,
    its format, and with whom."""
    upcoming = ctx.uow[MOCKS].for_user(ctx.workspace, ctx.user, UPCOMING, limit=1)
    if not upcoming:
        return []
    mock = upcoming[0]
    parts = [
        f"#{mock.id}",
        show(mock.starts_at, zone_of(ctx.user, ctx.workspace)),
        mock.format,
        _mock_role(ctx, mock),
    ]
    if mock.status == PROPOSED:
        parts.append("waiting for acceptance")
    return [Field("Next mock", " · ".join(parts))]


def rank_section(ctx: Context) -> list[Field]:
    """The user's rank this week on the workspace board, and each of their teams' rank
    among teams (by points per active member, as ``/leaderboard teams`` ranks them)."""
    week = period_of("week", ctx.now, ctx.workspace_zone)
    fields: list[Field] = []
    own = ctx.uow[LEADERBOARD].row(ctx.workspace, week.key, ctx.user)
    if own is not None and own.points > 0:
        above = ctx.uow[LEADERBOARD].count_above(ctx.workspace, week.key, own.points)
        fields.append(Field("Rank this week", f"#{above + 1} · {own.points} pts"))
    mine = ctx.uow[TEAMS].of_user(ctx.workspace, ctx.user)
    if mine:
        scores = {
            s.team_id: s for s in ranked_teams(ctx.uow[LEADERBOARD].teams(ctx.workspace, week.key))
        }
        lines = []
        for team in mine:
            score = scores.get(team.id)
            if score is None or not score.active:
                lines.append(f"{team.name}: no points yet this week")
            else:
                lines.append(
                    f"{team.name}: #{score.rank} of {_plural(len(scores), 'team')} · "
                    f"{score.per_active:.1f} pts per active member"
                )
        fields.append(Field("Team rank", "\n".join(lines)))
    return fields


def season_section(ctx: Context) -> list[Field]:
    """The user's rank and points in the season under way, and its last day; nothing
    before they score in it (or before the workspace's first season exists: the Home tab
    only reads)."""
    season = ctx.uow[SEASONS].containing(ctx.workspace, ctx.now)
    if season is None:
        return []
    own = ctx.uow[LEADERBOARD].row(ctx.workspace, season.key, ctx.user)
    if own is None or own.points <= 0:
        return []
    above = ctx.uow[LEADERBOARD].count_above(ctx.workspace, season.key, own.points)
    last_day = local_span(season, ctx.workspace_zone)[1]
    return [
        Field(
            "Season",
            f"{season.name}: #{above + 1} · {own.points} pts · ends {last_day:%a %d %b}",
        )
    ]


SECTIONS: list[Section] = [
    answers_section,
    streak_section,
    reviews_section,
    mock_section,
    goal_fields,
    rank_section,
    season_section,
]


def home_card(ctx: Context) -> Card:
    """The acting user's summary card: one field per thing a capability knows about them."""
    fields = [f for section in SECTIONS for f in section(ctx)]
    return Card(
        title=f"Your studybot, {ctx.user.display}"[:150],
        blocks=("Your progress in this workspace.",),
        fields=tuple(fields),
        footer="Type /help in any channel to see every command.",
    )


def home_action(ctx: Context, _parts: list[str], _text: str) -> list[Outgoing]:
    """The ``home`` action: the user's summary, privately."""
    return [
        Outgoing(
            Delivery.PRIVATE,
            ctx.user.external_id,
            home_card(ctx),
            channel=ctx.channel.external_id,
            tags={"view": "home"},
        )
    ]
