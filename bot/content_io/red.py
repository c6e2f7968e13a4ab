"""Red-DiscordBot trivia lists: YAML mapping questions to lists of accepted answers.

The format (Red's ``trivia.schema.json``): top-level keys are questions, each
mapping to a list of accepted answers; optional ``AUTHOR``, ``DESCRIPTION``,
``$schema`` (text) and ``CONFIG`` (session settings). Answers may be text,
numbers or booleans; like Red, a boolean answer accepts True/Yes/On (or
False/No/Off). Each question becomes a ``short`` question of the contract.

A list that Red itself would refuse is refused here too, with every reason.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from bot.content_io.common import Draft, Imported, read_text, short_text
from bot.content_io.yamlsafe import load_yaml
from bot.core.errors import ContentError

LABEL = "Red trivia list"
DEFAULT_SOURCE = "https://docs.discord.red/en/stable/cog_guides/trivia.html"
META_KEYS = ("AUTHOR", "DESCRIPTION", "$schema")

_TRUE = ("True", "Yes", "On")
_FALSE = ("False", "No", "Off")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# Each CONFIG key: (check, what it must be), following Red's own schema.
_CONFIG: dict[str, tuple[Any, str]] = {
    "bot_plays": (lambda v: isinstance(v, bool), "true or false"),
    "reveal_answer": (lambda v: isinstance(v, bool), "true or false"),
    "use_spoilers": (lambda v: isinstance(v, bool), "true or false"),
    "delay": (lambda v: _number(v) and v >= 4, "a number of seconds, at least 4"),
    "timeout": (lambda v: _number(v) and v > 0, "a positive number of seconds"),
    "max_score": (
        lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1,
        "a positive whole number",
    ),
    "payout_multiplier": (lambda v: _number(v) and v >= 0, "a number, zero or more"),
}


def _config_problems(config: Any, where: str) -> list[str]:
    if not isinstance(config, dict):
        return [f"{where}: CONFIG must be a 'key: value' mapping"]
    problems = []
    for key, value in config.items():
        rule = _CONFIG.get(str(key))
        if rule is None:
            known = ", ".join(_CONFIG)
            problems.append(f"{where}: CONFIG key {key!r} is not a Red setting (known: {known})")
        elif not rule[0](value):
            problems.append(f"{where}: CONFIG {key} must be {rule[1]} (got {value!r})")
    return problems


def _answer_texts(values: list[Any], where: str, problems: list[str]) -> list[str]:
    texts: list[str] = []
    for value in values:
        if isinstance(value, bool):
            texts.extend(_TRUE if value else _FALSE)
        elif _number(value):
            texts.append(str(value))
            if isinstance(value, float) and value.is_integer():
                texts.append(str(int(value)))
        elif isinstance(value, str):
            if value.strip():
                texts.append(value.strip())
            else:
                problems.append(f"{where}: an answer is empty")
        elif isinstance(value, dt.date | dt.datetime):
            problems.append(f"{where}: answer {value} is read as a date: put it in quotes")
        elif value is None:
            problems.append(f"{where}: an answer is empty ('-' with nothing after it)")
        else:
            problems.append(
                f"{where}: answer {short_text(repr(value))} is not text, a number or a boolean"
            )
    return list(dict.fromkeys(texts))


def parse_red(text: str, name: str) -> Imported:
    """Read a Red trivia list from YAML text; raise ContentError listing every problem."""
    data, lines = load_yaml(text, name)
    if data is None:
        raise ContentError([f"{name}: the file is empty: a trivia list maps questions to answers"])
    if not isinstance(data, dict):
        raise ContentError(
            [
                f"{name}: a trivia list must be a 'question: [answers]' mapping, "
                f"not a {type(data).__name__}"
            ]
        )
    problems: list[str] = []
    imported = Imported(label=LABEL, file_name=name, default_source=DEFAULT_SOURCE)

    def where(key: Any) -> str:
        line = lines.get(key)
        return f"{name}: line {line}" if line else name

    for key in META_KEYS:
        if key in data and not isinstance(data[key], str):
            problems.append(f"{where(key)}: {key} must be text")
    if "CONFIG" in data:
        problems.extend(_config_problems(data["CONFIG"], where("CONFIG")))
    author = data.get("AUTHOR") if isinstance(data.get("AUTHOR"), str) else None
    described = data.get("DESCRIPTION") if isinstance(data.get("DESCRIPTION"), str) else None
    parts = [p.strip() for p in (described, f"By {author}." if author else None) if p]
    imported.description = " ".join(parts) or None

    for key, value in data.items():
        if key in (*META_KEYS, "CONFIG"):
            continue
        here = where(key)
        if not isinstance(key, str):
            problems.append(f"{here}: question {key!r} is not text: put it in quotes")
            continue
        if not key.strip():
            problems.append(f"{here}: a question is empty")
            continue
        label = f"{here}: question {short_text(key)!r}"
        if value is None or value == []:
            problems.append(f"{label} has no answers: list at least one under it")
            continue
        if not isinstance(value, list):
            problems.append(
                f"{label}: answers must be a list, one '- answer' line each, not a single value"
            )
            continue
        answers = _answer_texts(value, label, problems)
        if not answers:
            continue
        explanation = f"Accepted answers: {'; '.join(answers)}. Imported from {LABEL} file {name}"
        explanation += f" (by {author})." if author else "."
        imported.drafts.append(
            Draft(
                origin=label,
                fields={
                    "kind": "short",
                    "prompt": key.strip(),
                    "answers": answers,
                    "explanation": explanation,
                },
            )
        )
    if not problems and not imported.drafts:
        problems.append(f"{name}: the trivia list has no questions")
    if problems:
        raise ContentError(problems)
    return imported


def read_red(path: Path) -> Imported:
    """Read a Red trivia list file (``.yaml``)."""
    return parse_red(read_text(path), path.name)
