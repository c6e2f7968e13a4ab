"""The grader the settings describe, built in one place for every command that grades.

``studybot run``, ``console``, ``regrade`` (through ``bootstrap``) and ``studybot grade``
all grade with :func:`build_grader`, so they honour the same settings: the reference
backend of open questions and the optional judge. Light on purpose: ``studybot grade``
imports this without the database layer.
"""

from __future__ import annotations

from bot.config import Settings
from bot.core import grading
from bot.core.context import Grader


def build_grader(settings: Settings) -> Grader:
    """The grader the settings describe (the reference backend of open questions, and the
    optional judge where the rules are unsure)."""
    from bot.core.grading.reference import set_reference_backend
    from bot.judge_http import judged

    set_reference_backend(settings.studybot_reference_backend)
    return judged(settings, grading.grade)
