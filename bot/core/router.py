"""What an answer answers: the one router for ``/answer TEXT`` and plain text.

Buttons and forms name their question (``daily:<prompt>:…``, ``quiz:<id>:<position>:…``,
``live:<id>:<position>:…``, ``mock:<id>:<round>:…``: see ``commands.ACTIONS``), so they
never come here. Everything else is routed in this order, the first that applies wins:

1. a reply in a daily post's thread answers that post;
2. the acting user's running mock round, where the mock runs (its thread, its DM, its
   channel);
3. a live round running in this channel;
4. the user's open personal quiz or review;
5. the channel's latest daily question.

So a live round in a channel takes the answers written there, even from someone who has a
personal quiz open (they answer that with its buttons, or elsewhere).
"""

from __future__ import annotations

from bot.core.context import Context
from bot.core.daily.answering import answer_daily
from bot.core.daily.schedule import DAILY
from bot.core.messages import Outgoing
from bot.core.mock.running import answer_running_mock
from bot.core.quiz.live import answer_live
from bot.core.quiz.model import QUIZZES
from bot.core.quiz.personal import answer_personal


def route_answer(ctx: Context, text: str) -> list[Outgoing]:
    """Answer whatever ``text`` (from ``/answer`` or a plain message) answers; see above."""
    if ctx.event.thread:
        prompt = ctx.uow[DAILY].by_message_ref(ctx.channel, ctx.event.thread)
        if prompt is not None:
            return answer_daily(ctx, text, prompt)
    running = answer_running_mock(ctx, text)
    if running is not None:
        return running
    live = ctx.uow[QUIZZES].open_live(ctx.workspace, ctx.channel)
    if live is not None:
        return answer_live(ctx, live, text)
    session = ctx.uow[QUIZZES].open_for_user(ctx.workspace, ctx.user)
    if session is not None:
        return answer_personal(ctx, session, text)
    return answer_daily(ctx, text)
