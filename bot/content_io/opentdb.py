"""Open Trivia DB API responses (``https://opentdb.com/api.php?...``) as ``choice`` questions.

Texts are HTML-entity encoded by default (``&quot;``, ``&#039;``) and decoded
here; responses fetched with ``encode=base64`` are recognised and decoded too.
``multiple`` questions get their four choices in a shuffled order that depends
only on the question text (the same file always imports the same way);
``boolean`` ones get True/False. Difficulty easy/medium/hard becomes 1/2/3 and
the category becomes a tag.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import html
import json
import random
from pathlib import Path
from typing import Any

from bot.content_io.common import Draft, Imported, read_text, short_text
from bot.core.errors import ContentError

LABEL = "Open Trivia DB"
DEFAULT_SOURCE = "https://opentdb.com/"
DIFFICULTY = {"easy": 1, "medium": 2, "hard": 3}
RESPONSE_CODES = {
    1: "no results: the API could not return that many questions for the query",
    2: "invalid parameter in the API request",
    3: "session token not found",
    4: "session token exhausted: every question for the query was returned already",
    5: "rate limit: too many requests (one every 5 seconds per IP)",
}
_BASE64_TYPES = {"bXVsdGlwbGU=": "multiple", "Ym9vbGVhbg==": "boolean"}


def shuffled_choices(question: str, correct: str, incorrect: list[str]) -> list[str]:
    """All choices in an order seeded by the question text: shuffled, but the same every time."""
    choices = [correct, *incorrect]
    seed = int.from_bytes(hashlib.sha256(question.encode("utf-8")).digest()[:8], "big")
    random.Random(seed).shuffle(choices)
    return choices


def _decoder(results: list[Any]) -> Any:
    """``html.unescape``, or base64 then UTF-8 when the response was fetched with encode=base64."""
    first = results[0] if results and isinstance(results[0], dict) else {}
    if str(first.get("type")) in _BASE64_TYPES:

        def from_base64(value: str) -> str:
            try:
                return base64.b64decode(value, validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError) as exc:
                raise ValueError(f"{value!r} is not base64 text") from exc

        return from_base64
    return html.unescape


def _text(item: dict[str, Any], key: str, decode: Any, where: str, problems: list[str]) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        problems.append(f"{where}: {key} is missing or empty")
        return ""
    try:
        return " ".join(str(decode(value)).split())
    except ValueError as exc:
        problems.append(f"{where}: {key}: {exc}")
        return ""


def parse_opentdb(text: str, name: str) -> Imported:
    """Read an Open Trivia DB API response (JSON); ContentError listing every problem."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ContentError(
            [f"{name}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"]
        ) from exc
    except RecursionError as exc:
        raise ContentError([f"{name}: not valid JSON: nested too deeply"]) from exc
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise ContentError(
            [f"{name}: not an Open Trivia DB response: expected an object with a results list"]
        )
    code = data.get("response_code", 0)
    if code != 0:
        reason = RESPONSE_CODES.get(code, "unknown error") if isinstance(code, int) else "unknown"
        raise ContentError([f"{name}: the API answered response_code {code!r} ({reason})"])
    results: list[Any] = data["results"]
    decode = _decoder(results)
    imported = Imported(label=LABEL, file_name=name, default_source=DEFAULT_SOURCE)
    problems: list[str] = []
    for n, item in enumerate(results, start=1):
        where = f"{name}: result {n}"
        if not isinstance(item, dict):
            problems.append(f"{where}: not an object")
            continue
        question = _text(item, "question", decode, where, problems)
        if question:
            where = f"{where} ({short_text(question, 40)!r})"
        kind = _text(item, "type", decode, where, problems)
        difficulty = _text(item, "difficulty", decode, where, problems)
        category = _text(item, "category", decode, where, problems)
        correct = _text(item, "correct_answer", decode, where, problems)
        raw_wrong = item.get("incorrect_answers")
        if not isinstance(raw_wrong, list) or not raw_wrong:
            problems.append(f"{where}: incorrect_answers must be a non-empty list")
            continue
        wrong = [
            _text({"answer": w}, "answer", decode, f"{where} incorrect answer", problems)
            for w in raw_wrong
        ]
        if kind and kind not in ("multiple", "boolean"):
            problems.append(f"{where}: type {kind!r} is neither multiple nor boolean")
        if difficulty and difficulty not in DIFFICULTY:
            problems.append(f"{where}: difficulty {difficulty!r} is not easy, medium or hard")
        if not (question and kind and difficulty and category and correct and all(wrong)):
            continue
        if kind == "boolean":
            other = "False" if correct == "True" else "True"
            if correct not in ("True", "False") or wrong != [other]:
                problems.append(f"{where}: a boolean question needs True and False as answers")
                continue
            choices = ["True", "False"]
        else:
            choices = shuffled_choices(question, correct, wrong)
            if len(set(choices)) != len(choices):
                problems.append(f"{where}: the same answer text appears twice among the choices")
                continue
        imported.drafts.append(
            Draft(
                origin=where,
                fields={
                    "difficulty": DIFFICULTY.get(difficulty, 2),
                    "kind": "choice",
                    "prompt": question,
                    "choices": choices,
                    "answer": correct,
                    "explanation": f"The answer is {correct}. Imported from {LABEL} ({category}).",
                    "tags": [category],
                },
            )
        )
    if not problems and not imported.drafts:
        problems.append(f"{name}: the response holds no questions")
    if problems:
        raise ContentError(problems)
    return imported


def read_opentdb(path: Path) -> Imported:
    """Read an Open Trivia DB API response saved as a ``.json`` file."""
    return parse_opentdb(read_text(path), path.name)
