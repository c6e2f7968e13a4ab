"""Mock interviews: scheduling, reminders, peer pairing, a timed multi-round loop, scorecards.

``/mock`` sub-commands::

    /mock schedule WHEN [with @PEER] [loop|technical|product|behavioral] [box=8m]
    /mock list | cancel ID | reschedule ID WHEN
    /mock available [DAYS FROM-TO | clear]      weekly windows, e.g. weekdays 18:00-20:00
    /mock pair [FORMAT]                         propose a mock with someone free when you are
    /mock accept ID | decline ID
    /mock vote ID ROUND strong-no|no|yes|strong-yes [NOTE] · /mock note ID ROUND TEXT
    /mock history [ID] · /mock remind [24h 1h | off]
    /mock pairing join|leave|status             the channel's weekly pairing round
    /mock pairing happened ID yes|no            its check-in

Everything that happens later is a row: reminders (``reminder``) and each mock's next
step (``mock_interview.next_at``: its start, the end of a round's time box, the end of
the debrief wait). The jobs in :mod:`.jobs` claim them, so a restart, the console's
``/advance`` and several workers all pick up where things are.

The modules:

- :mod:`.model` — the records, the statuses (a diagram) and ``MockRepository``;
- :mod:`.parsing` — the words of ``/mock``; :mod:`.times` — WHEN, zones, weekly windows;
- :mod:`.commands` — ``/mock`` and the buttons (the entry points), votes, history;
- :mod:`.scheduling` — schedule, list, cancel, reschedule, accept, decline;
- :mod:`.pairing` — a partner and a slot from overlapping availability;
- :mod:`.rounds` — the weekly pairing round of a channel, its opt-ins and check-ins;
- :mod:`.preferences` — availability windows and reminder offsets;
- :mod:`.reminders` — the reminder rows and their card;
- :mod:`.running` — the running mock's state machine (start, rounds, answers, votes, end);
- :mod:`.scorecard` — the scorecard and debrief; :mod:`.questions` — a round's question;
- :mod:`.jobs` — ``MockReminderJob`` and ``MockClockJob``; :mod:`.common` — what they share.
"""
