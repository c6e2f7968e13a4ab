"""The daily question: one post per channel per local date, on the channel's schedule or
when someone first asks with ``/daily``; private grades; a reveal before the next post.

Reveal: the original post is *updated in place* (``Delivery.UPDATE`` of the post's
platform message) to show the answer, the explanation, the source and the channel's
stats, and its buttons go away; if the post's platform id is not known (it was never
delivered), the reveal is posted as a new channel message instead. Updating keeps one
message per day in the channel, and nobody can click a stale button on a revealed post.

Due work (see :mod:`bot.core.due`): :class:`DailyRevealJob` runs before
:class:`DailyPostJob`, and a prompt's reveal time is always before the channel's next
post. Work missed by more than the grace period (``Services.grace``) is skipped and
logged: the schedule moves on to its next slot, a late reveal marks the prompt revealed
without a message.

The modules: :mod:`.schedule` (channel schedules, their grammar, the repositories of
schedules and daily prompts), :mod:`.choosing` (which question a channel gets next),
:mod:`.posting` (the post, the reveal and their due jobs, ``/daily``), :mod:`.answering`
(grading an answer to a prompt, the post's buttons and form) and :mod:`.studybot` (the
``/studybot`` command).
"""
