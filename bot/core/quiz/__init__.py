"""Quizzes: personal ones driven by spaced repetition, and live rounds in a channel.

A personal quiz (``/quiz [topic] [n] [difficulty]``, ``/review``) is private: one
question at a time, each graded with feedback as it is answered, then a
summary. It picks due reviews first, then weak topics, then new questions.
Personal practice counts for streaks and mastery, never for the boards.

A live round (``/quiz live [topic] [n]``) posts questions in the channel with a
countdown; the first correct answer scores (difficulty-weighted, plus a speed
bonus); each person gets one answer per question; the round ends after n
questions or two in a row that nobody answered, with a standings card. Its
clock-driven steps are the ``LiveQuizJob``; all state lives in ``quiz_session``,
so a quiz survives a restart.

The modules: :mod:`.model` (the records and ``QuizRepository``), :mod:`.personal` (``/quiz``,
``/review``, their buttons), :mod:`.live` (``/quiz live``, its buttons, ``LiveQuizJob``) and
:mod:`.common` (what both use: the request grammar, the question card, the answer form).
"""
