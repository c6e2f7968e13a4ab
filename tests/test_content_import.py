"""Importers: Red trivia lists, Anki decks (.apkg and text), Open Trivia DB, CSV.

Each is tested on the shared samples and on malformed input: a clear message,
one line per problem, and nothing written.
"""

from __future__ import annotations

import base64
import json
import sqlite3
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.content_io import ImportOptions, import_file
from bot.content_io.anki import parse_anki_text, parse_apkg, read_anki
from bot.content_io.common import assemble, slugify, strip_html, unique_ids
from bot.content_io.csv_io import parse_csv
from bot.content_io.opentdb import parse_opentdb, read_opentdb, shuffled_choices
from bot.content_io.red import parse_red, read_red
from bot.core.content import PACKS_DIR, load_pack, parse_pack
from bot.core.errors import ContentError, UserError
from bot.core.lint import lint_paths

FIXTURES = Path(__file__).parent / "fixtures" / "import"
RED = FIXTURES / "red-trivia-example.yaml"
APKG = FIXTURES / "spanish-small.apkg"
APKG_EXPECTED = FIXTURES / "spanish-small.expected.json"
OPENTDB = FIXTURES / "opentdb-response.json"


def _imports_cleanly(fmt: str, file: Path, out_dir: Path, **options: Any) -> Path:
    """Import into an empty folder; assert the pack loads and passes lint; return its path."""
    result = import_file(fmt, file, ImportOptions(**options), packs_dir=out_dir)
    assert result.path is not None and result.path.parent == out_dir
    pack = load_pack(result.path)
    assert pack.questions == result.pack.questions
    problems, count = lint_paths([result.path])
    assert problems == []
    assert count == len(pack.questions)
    return result.path


def _refused(fmt: str, file: Path, out_dir: Path, *expected: str, **options: Any) -> str:
    """Import must fail with ContentError/UserError naming ``expected`` and write nothing."""
    before = sorted(out_dir.iterdir())
    opts = ImportOptions(**({"pack": "broken"} | options))
    with pytest.raises((ContentError, UserError)) as info:
        import_file(fmt, file, opts, packs_dir=out_dir)
    assert sorted(out_dir.iterdir()) == before
    message = str(info.value)
    for text in expected:
        assert text in message, message
    return message


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "packs"
    folder.mkdir()
    return folder


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# --- Red trivia lists ----------------------------------------------------------


def test_red_sample_imports_as_short_questions_that_pass_lint(out_dir: Path) -> None:
    path = _imports_cleanly("red", RED, out_dir, pack="red-trivia")
    pack = load_pack(path)
    assert len(pack.questions) == 5
    assert {q.kind for q in pack.questions} == {"short"}
    days = next(q for q in pack.questions if q.prompt.startswith("How many days"))
    assert days.accepted == ("365", "three hundred and sixty five")  # YAML's int 365 as text
    medal = next(q for q in pack.questions if "gold medallist" in q.prompt)
    assert medal.accepted == ("$37,500", "37,500", "37.5k", "37500", "$37500")
    assert all(
        q.sources == ("https://docs.discord.red/en/stable/cog_guides/trivia.html",)
        for q in pack.questions
    )
    assert all(
        q.topic == "red-trivia" and q.roles == ("pm", "eng") and q.difficulty == 2
        for q in pack.questions
    )
    assert all(q.id.startswith("red-trivia-") for q in pack.questions)
    assert "Imported from Red trivia list file red-trivia-example.yaml" in days.explanation
    assert pack.title == "red-trivia"


def test_red_booleans_and_numbers_become_accepted_texts(tmp_path: Path) -> None:
    text = (
        "AUTHOR: someone\n"
        "DESCRIPTION: Mixed answers\n"
        "Is the sky blue?:\n- true\n"
        "Is fire cold?:\n- no\n"
        "What is pi to two decimals?:\n- 3.14\n"
        "How many sides has a square?:\n- 4.0\n"
    )
    imported = parse_red(text, "mixed.yaml")
    answers = {d.fields["prompt"]: d.fields["answers"] for d in imported.drafts}
    assert answers["Is the sky blue?"] == ["True", "Yes", "On"]
    assert answers["Is fire cold?"] == ["False", "No", "Off"]  # YAML 1.1: no is a boolean
    assert answers["What is pi to two decimals?"] == ["3.14"]
    assert answers["How many sides has a square?"] == ["4.0", "4"]
    assert imported.description == "Mixed answers By someone."


def test_red_explicit_options_override_the_defaults(out_dir: Path) -> None:
    path = _imports_cleanly(
        "red",
        RED,
        out_dir,
        pack="Pub Quiz",
        title="Pub quiz night",
        topic="trivia",
        source="https://example.org/quiz",
        roles=("eng",),
        difficulty=1,
    )
    assert path.name == "pub-quiz.yaml"
    pack = load_pack(path)
    assert pack.pack == "pub-quiz" and pack.title == "Pub quiz night"
    q = pack.questions[0]
    assert (q.topic, q.roles, q.difficulty, q.sources) == (
        "trivia",
        ("eng",),
        1,
        ("https://example.org/quiz",),
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("Question: [unclosed\n", ["not valid YAML at line"]),
        ("- just\n- a list\n", ["must be a 'question: [answers]' mapping, not a list"]),
        ("", ["the file is empty"]),
        ("AUTHOR: me\n", ["the trivia list has no questions"]),
        ("What is 2+2?: four\n", ["line 1: question 'What is 2+2?'", "must be a list"]),
        ("What is 2+2?:\n", ["question 'What is 2+2?' has no answers"]),
        ("What is 2+2?: []\n", ["has no answers"]),
        ("Q1?:\n- ''\n", ["an answer is empty"]),
        ("Q1?:\n-\n", ["an answer is empty"]),
        ("Q1?:\n- [nested]\n", ["is not text, a number or a boolean"]),
        ("Q1?:\n- 2015-05-03\n", ["read as a date: put it in quotes"]),
        ("1999:\n- party\n", ["question 1999 is not text: put it in quotes"]),
        ("Q1?:\n- a\nQ1?:\n- b\n", ["key 'Q1?' is given twice", "line 3"]),
        (
            "CONFIG:\n  delay: 2\n  max_score: 0\n  colour: red\nQ?:\n- a\n",
            [
                "CONFIG delay must be a number of seconds, at least 4 (got 2)",
                "CONFIG max_score must be a positive whole number (got 0)",
                "CONFIG key 'colour' is not a Red setting",
            ],
        ),
        ("CONFIG: fast\nQ?:\n- a\n", ["CONFIG must be a 'key: value' mapping"]),
        ("AUTHOR: [a, b]\nQ?:\n- a\n", ["AUTHOR must be text"]),
    ],
)
def test_red_invalid_lists_are_refused_with_the_reason(
    tmp_path: Path, out_dir: Path, content: str, expected: list[str]
) -> None:
    source = _write(tmp_path, "bad.yaml", content)
    _refused("red", source, out_dir, *expected)


def test_red_reports_every_problem_at_once(tmp_path: Path) -> None:
    source = _write(tmp_path, "bad.yaml", "A?: x\nB?:\nC?:\n- fine\nD?: 3\n")
    with pytest.raises(ContentError) as info:
        read_red(source)
    assert len(info.value.problems) == 3
    assert [p.split(":")[1].strip() for p in info.value.problems] == [
        "line 1",
        "line 2",
        "line 5",
    ]


# --- Anki .apkg --------------------------------------------------------------------


def test_apkg_notes_match_the_expected_export(out_dir: Path) -> None:
    expected = json.loads(APKG_EXPECTED.read_text(encoding="utf-8"))["notes"]
    path = _imports_cleanly("anki", APKG, out_dir, pack="spanish")
    pack = load_pack(path)
    assert pack.title == "espanol"  # the deck's name
    assert len(pack.questions) == len(expected)
    for q, note in zip(pack.questions, expected, strict=True):
        assert q.kind == "open"
        assert q.prompt == strip_html(note["fields"]["Front"])
        assert q.model_answer == strip_html(note["fields"]["Back"])
        assert q.rubric == ()
        assert q.tags == tuple(note["tags"])
        assert q.sources == ("https://apps.ankiweb.net/",)
    assert pack.questions[1].prompt == "Elderberry"  # "Elderberry&nbsp;" stripped


def _apkg(
    path: Path,
    notes: list[tuple[int, str, list[str]]],
    *,
    member: str = "collection.anki21",
    models: dict[str, Any] | None = None,
    extra: dict[str, bytes] | None = None,
) -> Path:
    """A small .apkg: notes are (model id, tags, fields)."""
    models = models or {
        "1": {
            "name": "Basic",
            "type": 0,
            "flds": [{"name": "Front", "ord": 0}, {"name": "Back", "ord": 1}],
        },
        "2": {
            "name": "Cloze",
            "type": 1,
            "flds": [{"name": "Text", "ord": 0}, {"name": "Back Extra", "ord": 1}],
        },
    }
    db_path = path.with_suffix(".sqlite")
    db = sqlite3.connect(db_path)
    db.executescript(
        "CREATE TABLE col (id INTEGER PRIMARY KEY, models TEXT, decks TEXT);"
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, guid TEXT, mid INTEGER, tags TEXT, flds TEXT);"
        "CREATE TABLE cards (id INTEGER PRIMARY KEY, nid INTEGER, did INTEGER, ord INTEGER);"
    )
    db.execute(
        "INSERT INTO col VALUES (1, ?, ?)",
        (json.dumps(models), json.dumps({"1": {"name": "Default"}, "7": {"name": "GPU::MIG"}})),
    )
    for n, (mid, tags, fields) in enumerate(notes, start=1):
        db.execute(
            "INSERT INTO notes VALUES (?, ?, ?, ?, ?)",
            (n, f"g{n}", mid, tags, "\x1f".join(fields)),
        )
        db.execute("INSERT INTO cards VALUES (?, ?, 7, 0)", (100 + n, n))
    db.commit()
    db.close()
    with zipfile.ZipFile(path, "w") as archive:
        archive.write(db_path, member)
        archive.writestr("media", "{}")
        for name, blob in (extra or {}).items():
            archive.writestr(name, blob)
    db_path.unlink()
    return path


def test_apkg_strips_html_and_turns_cloze_into_blanks(tmp_path: Path, out_dir: Path) -> None:
    source = _apkg(
        tmp_path / "gpu.apkg",
        [
            (
                1,
                " mig ",
                [
                    "How many <b>GPU instances</b>&nbsp;on an A100?",
                    "Seven<br>with MIG <img src='a.png'>[sound:x.mp3]",
                ],
            ),
            (2, "", ["MIG stands for {{c1::Multi-Instance::two words}} {{c2::GPU}}", "Ampere+"]),
        ],
    )
    path = _imports_cleanly("anki", source, out_dir, pack="gpu")
    first, cloze = load_pack(path).questions
    assert first.prompt == "How many GPU instances on an A100?"
    assert first.model_answer == "Seven\nwith MIG"
    assert first.tags == ("mig",)
    assert cloze.prompt == "MIG stands for [two words] [...]"
    assert cloze.model_answer == "Multi-Instance; GPU"
    assert cloze.explanation == "MIG stands for Multi-Instance GPU\n\nAmpere+"
    assert load_pack(path).title == "GPU::MIG"


def test_apkg_malformed_packages_are_refused(tmp_path: Path, out_dir: Path) -> None:
    not_zip = _write(tmp_path, "text.apkg", "front\tback\n")
    _refused("anki", not_zip, out_dir, "text.apkg: not an Anki package (not a zip file)")

    empty = tmp_path / "empty.apkg"
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("media", "{}")
    _refused("anki", empty, out_dir, "no collection.anki2 or collection.anki21 inside")

    corrupt = tmp_path / "corrupt.apkg"
    with zipfile.ZipFile(corrupt, "w") as archive:
        archive.writestr("collection.anki21", b"this is not sqlite" * 100)
    _refused("anki", corrupt, out_dir, "collection.anki21 is not a readable Anki collection")

    no_back = _apkg(tmp_path / "noback.apkg", [(1, "", ["Front only", "<br>&nbsp;"])])
    _refused("anki", no_back, out_dir, "note 1 ('Front only'): the back is empty")

    image = _apkg(tmp_path / "image.apkg", [(1, "", ["<img src='x.png'>", "a picture"])])
    _refused("anki", image, out_dir, "the front is empty once HTML and media are removed")

    orphan = _apkg(tmp_path / "orphan.apkg", [(9, "", ["Q", "A"])])
    _refused("anki", orphan, out_dir, "its note type 9 is missing")


def test_apkg_in_the_newer_anki_format_asks_for_a_compatible_export(
    tmp_path: Path, out_dir: Path
) -> None:
    newer = tmp_path / "newer.apkg"
    with zipfile.ZipFile(newer, "w") as archive:
        archive.writestr("collection.anki21b", b"\x28\xb5\x2f\xfd zstd data")
    _refused("anki", newer, out_dir, "collection.anki21b", "ticked")
    placeholder = _apkg(
        tmp_path / "placeholder.apkg",
        [(1, "", ["Please update to the latest Anki version, then import the .apkg again.", ""])],
        member="collection.anki2",
        extra={"collection.anki21b": b"\x28\xb5\x2f\xfd"},
    )
    message = _refused("anki", placeholder, out_dir, "Support older Anki versions")
    assert "unreadable" not in message


def test_apkg_old_collection_anki2_is_read_when_it_is_the_only_one(tmp_path: Path) -> None:
    source = _apkg(tmp_path / "old.apkg", [(1, "a b", ["Q?", "A."])], member="collection.anki2")
    imported = read_anki(source)
    assert [
        (d.fields["prompt"], d.fields["model_answer"], d.fields["tags"]) for d in imported.drafts
    ] == [("Q?", "A.", ["a", "b"])]


def test_apkg_bytes_that_are_not_a_zip_say_so() -> None:
    with pytest.raises(ContentError, match="not a zip file"):
        parse_apkg(b"PK\x03\x04 truncated", "x.apkg")


# --- Anki text export ------------------------------------------------------------------

ANKI_TEXT = (
    "#separator:tab\n"
    "#html:true\n"
    "#guid column:1\n"
    "#notetype column:2\n"
    "#deck column:3\n"
    "#tags column:6\n"
    'g1\tBasic\tGPU\t"What does <b>MIG</b> stand&nbsp;for?"\tMulti-Instance GPU\tmig nvidia\n'
    'g2\tBasic\tGPU\t"Name two ""sharing"" modes,\n'
    'one per line"\t"MPS<br>time-slicing<div>and more</div>"\t\n'
    "\n"
    "g3\tCloze\tGPU\tAn A100 has {{c1::7}} MIG slices\t\tmig\n"
)


def test_anki_text_reads_headers_quotes_multiline_fields_and_strips_html(
    tmp_path: Path, out_dir: Path
) -> None:
    source = _write(tmp_path, "notes.txt", ANKI_TEXT)
    path = _imports_cleanly("anki", source, out_dir, pack="gpu-cards")
    first, second, cloze = load_pack(path).questions
    assert first.prompt == "What does MIG stand for?"
    assert first.model_answer == "Multi-Instance GPU"
    assert first.tags == ("mig", "nvidia")
    assert second.prompt == 'Name two "sharing" modes,\none per line'
    assert second.model_answer == "MPS\ntime-slicing\nand more"
    assert second.tags == ()
    assert cloze.prompt == "An A100 has [...] MIG slices"
    assert cloze.model_answer == "7"
    assert cloze.tags == ("mig",)


def test_anki_text_without_headers_and_with_html_off() -> None:
    plain = parse_anki_text("Front one\tBack one\nFront two\tBack two\n", "plain.txt")
    assert [d.fields["prompt"] for d in plain.drafts] == ["Front one", "Front two"]
    literal = parse_anki_text("#separator:|\n#html:false\n<b>bold</b>|a &amp; b\n", "lit.txt")
    assert literal.drafts[0].fields["prompt"] == "<b>bold</b>"
    assert literal.drafts[0].fields["model_answer"] == "a &amp; b"
    named = parse_anki_text(
        "#separator:comma\n#columns:Back,Front,Tags\nanswer,question,t1 t2\n", "named.txt"
    )
    assert named.drafts[0].fields | {} == {
        "kind": "open",
        "prompt": "question",
        "model_answer": "answer",
        "tags": ["t1", "t2"],
    }


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("#separator:weird\na\tb\n", ["#separator:weird is not one of tab"]),
        ("#html:maybe\na\tb\n", ["#html:maybe must be true or false"]),
        ("#tags column:zero\na\tb\n", ["must be a column number"]),
        ("#separator:tab\n\n\n", ["no notes found"]),
        (
            "front only\nanother front\n",
            ["line 1 ('front only'): the back is empty", "line 2 ('another front')"],
        ),
        ("\tback without front\n", ["line 1 (''): the front is empty"]),
    ],
)
def test_anki_text_malformed_is_refused(
    tmp_path: Path, out_dir: Path, content: str, expected: list[str]
) -> None:
    source = _write(tmp_path, "bad.txt", content)
    _refused("anki", source, out_dir, *expected)


def test_anki_text_that_is_not_utf8_is_refused(tmp_path: Path, out_dir: Path) -> None:
    source = _write(tmp_path, "latin.txt", "caf\xe9\tcoffee\n".encode("latin-1"))
    _refused("anki", source, out_dir, "latin.txt: not UTF-8 text", "save the file as UTF-8")


# --- Open Trivia DB -----------------------------------------------------------------------


def test_opentdb_sample_decodes_entities_and_maps_kinds(out_dir: Path) -> None:
    path = _imports_cleanly("opentdb", OPENTDB, out_dir, pack="opentdb")
    pack = load_pack(path)
    raw = json.loads(OPENTDB.read_text(encoding="utf-8"))["results"]
    assert len(pack.questions) == len(raw) == 10
    prompts = [q.prompt for q in pack.questions]
    assert 'In flight systems, what does the initialism "TCAS" stand for?' in prompts
    assert "In Finding Nemo, what was the name of Nemo's mom?" in prompts
    assert not any("&quot;" in p or "&#039;" in p for p in prompts)
    for q, item in zip(pack.questions, raw, strict=True):
        assert q.kind == "choice"
        assert q.difficulty == {"easy": 1, "medium": 2, "hard": 3}[item["difficulty"]]
        assert q.tags == (item["category"],)
        assert q.sources == ("https://opentdb.com/",)
        assert q.correct == (item["correct_answer"],)
        if item["type"] == "boolean":
            assert q.choices == ("True", "False")
        else:
            assert sorted(q.choices) == sorted([item["correct_answer"], *item["incorrect_answers"]])
    positions = [q.choices.index(q.correct[0]) for q in pack.questions if len(q.choices) == 4]
    assert len(set(positions)) > 1  # shuffled, not always first


def test_opentdb_choice_order_is_deterministic_per_question() -> None:
    a = shuffled_choices("Which?", "right", ["w1", "w2", "w3"])
    assert a == shuffled_choices("Which?", "right", ["w1", "w2", "w3"])
    assert sorted(a) == ["right", "w1", "w2", "w3"]
    twice = [d.fields["choices"] for d in read_opentdb(OPENTDB).drafts]
    assert twice == [d.fields["choices"] for d in read_opentdb(OPENTDB).drafts]


def test_opentdb_base64_responses_are_decoded() -> None:
    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    response = {
        "response_code": 0,
        "results": [
            {
                "type": b64("boolean"),
                "difficulty": b64("hard"),
                "category": b64("Science: Computers"),
                "question": b64("MIG needs an Ampere or newer GPU."),
                "correct_answer": b64("True"),
                "incorrect_answers": [b64("False")],
            }
        ],
    }
    draft = parse_opentdb(json.dumps(response), "b64.json").drafts[0]
    assert draft.fields["prompt"] == "MIG needs an Ampere or newer GPU."
    assert draft.fields["difficulty"] == 3
    assert draft.fields["tags"] == ["Science: Computers"]


def _opentdb_item(**changes: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "category": "General Knowledge",
        "type": "multiple",
        "difficulty": "easy",
        "question": "Which is a GPU sharing mode?",
        "correct_answer": "MIG",
        "incorrect_answers": ["SLI", "RAID", "NUMA"],
    }
    return item | changes


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", ["bad.json: not valid JSON at line 1, column 2"]),
        ('{"response_code": 1, "results": []}', ["response_code 1 (no results"]),
        ('{"response_code": 5, "results": []}', ["rate limit"]),
        ('{"questions": []}', ["not an Open Trivia DB response"]),
        ('{"response_code": 0, "results": []}', ["the response holds no questions"]),
        (json.dumps({"results": [_opentdb_item(type="open")]}), ["type 'open' is neither"]),
        (json.dumps({"results": [_opentdb_item(difficulty="extreme")]}), ["'extreme' is not easy"]),
        (json.dumps({"results": [_opentdb_item(question="")]}), ["result 1: question is missing"]),
        (
            json.dumps({"results": [_opentdb_item(incorrect_answers="SLI")]}),
            ["incorrect_answers must be a non-empty list"],
        ),
        (
            json.dumps({"results": [_opentdb_item(incorrect_answers=["MIG", "SLI"])]}),
            ["the same answer text appears twice"],
        ),
        (
            json.dumps(
                {
                    "results": [
                        _opentdb_item(
                            type="boolean", correct_answer="Yes", incorrect_answers=["No"]
                        )
                    ]
                }
            ),
            ["a boolean question needs True and False"],
        ),
        (json.dumps({"results": [_opentdb_item(), 7]}), ["result 2: not an object"]),
    ],
)
def test_opentdb_malformed_is_refused(
    tmp_path: Path, out_dir: Path, content: str, expected: list[str]
) -> None:
    source = _write(tmp_path, "bad.json", content)
    _refused("opentdb", source, out_dir, *expected)


# --- CSV --------------------------------------------------------------------------------------

CSV_TEXT = (
    "prompt,kind,choices,answer,unit,difficulty,sources,tags,explanation\n"
    "How many MIG instances on an A100?,numeric,,7,instances,easy,https://docs.nvidia.com/mig,mig,\n"
    'Which shares memory?,,"MIG|time-slicing",B,,3,https://example.org/a https://example.org/b,,'
    '"Time-slicing, unlike MIG, shares memory."\n'
    "What does MPS stand for?,short,,Multi-Process Service|multi process service,,,"
    "https://example.org/mps,,\n"
)


def test_csv_hand_written_file_imports_with_inference_and_letters(
    tmp_path: Path, out_dir: Path
) -> None:
    source = _write(tmp_path, "hand.csv", CSV_TEXT)
    path = _imports_cleanly("csv", source, out_dir, pack="hand", topic="mig")
    numeric, choice, short = load_pack(path).questions
    assert (numeric.kind, numeric.value, numeric.tolerance, numeric.difficulty) == (
        "numeric",
        7.0,
        0.0,
        1,
    )
    assert choice.kind == "choice" and choice.correct == ("time-slicing",)  # letter B
    assert choice.sources == ("https://example.org/a", "https://example.org/b")
    assert choice.explanation == "Time-slicing, unlike MIG, shares memory."
    assert short.accepted == ("Multi-Process Service", "multi process service")
    assert short.explanation == "Imported from CSV file hand.csv."


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("", ["bad.csv: empty: expected a header row"]),
        ("prompt,kind\nQ,short\n", ["missing column(s) answer"]),
        ("promt,answer\nQ,A\n", ["unknown column(s) 'promt'", "missing column(s) prompt"]),
        ("prompt,answer,answer\nQ,A,B\n", ["column(s) answer appear twice"]),
        ("prompt,answer,sources\n", ["no questions below the header row"]),
        ("prompt,answer,sources\nQ,A,https://x.org,extra\n", ["4 cells but the header names 3"]),
        ("prompt,answer,sources\n,A,https://x.org\n", ["line 2: the prompt is empty"]),
        ("prompt,answer,kind,sources\nQ,A,essay,https://x.org\n", ["kind 'essay' is not"]),
        ("prompt,answer,difficulty,sources\nQ,A,9,https://x.org\n", ["difficulty '9' must be"]),
        (
            "prompt,answer,kind,sources\nQ,seven,numeric,https://x.org\n",
            ["'seven' is not a number"],
        ),
        ("prompt,answer,kind,sources\nQ,,short,https://x.org\n", ["the answer is empty"]),
        (
            "prompt,answer,kind,rubric,sources\nQ,,open,[{,https://x.org\n",
            ["rubric is not valid JSON"],
        ),
        (
            "prompt,answer\nWhat?,That\n",
            ["line 2 ('What?'): no source URL", "fill its sources or pass --source URL"],
        ),
        (
            "prompt,choices,answer,sources\nPick one,a|b,c,https://x.org\n",
            ["answer 'c' is not one of the choices", "[from bad.csv: line 2 ('Pick one')]"],
        ),
    ],
)
def test_csv_malformed_is_refused(
    tmp_path: Path, out_dir: Path, content: str, expected: list[str]
) -> None:
    source = _write(tmp_path, "bad.csv", content)
    _refused("csv", source, out_dir, *expected)


def test_csv_source_option_fills_empty_sources(tmp_path: Path, out_dir: Path) -> None:
    source = _write(tmp_path, "nosrc.csv", "prompt,answer\nWhat is MIG?,Multi-Instance GPU\n")
    path = _imports_cleanly("csv", source, out_dir, pack="nosrc", source="https://x.org/mig")
    assert load_pack(path).questions[0].sources == ("https://x.org/mig",)


# --- writing, lint, options -------------------------------------------------------------------


def test_existing_pack_is_kept_unless_forced(out_dir: Path) -> None:
    _imports_cleanly("red", RED, out_dir, pack="trivia")
    target = out_dir / "trivia.yaml"
    target.write_text("# hand edits\n", encoding="utf-8")
    message = _refused("red", RED, out_dir, "already exists: pass --force", pack="trivia")
    assert str(target) in message
    assert target.read_text(encoding="utf-8") == "# hand edits\n"
    import_file("red", RED, ImportOptions("trivia"), packs_dir=out_dir, force=True)
    assert len(load_pack(target).questions) == 5


def test_ids_that_collide_with_another_pack_in_the_folder_are_refused(
    tmp_path: Path, out_dir: Path
) -> None:
    first = _write(
        tmp_path, "a.csv", "id,prompt,answer,sources\nshared-id,Q one?,Alpha,https://x.org\n"
    )
    second = _write(
        tmp_path, "b.csv", "id,prompt,answer,sources\nshared-id,Q two?,Beta,https://x.org\n"
    )
    import_file("csv", first, ImportOptions("first"), packs_dir=out_dir)
    _refused("csv", second, out_dir, "'shared-id'", "also used", pack="second")


def test_lint_problems_point_back_to_the_source_line(tmp_path: Path, out_dir: Path) -> None:
    source = _write(
        tmp_path, "dupes.yaml", "What is MIG on an A100?:\n- a\nWhat is MIG on a A100?:\n- b\n"
    )
    message = _refused("red", source, out_dir, "near-duplicate", "[from dupes.yaml: line ")
    assert "nothing" not in message  # the CLI adds that, not the library


def test_importing_into_the_shipped_folder_needs_a_shipped_topic() -> None:
    with pytest.raises(ContentError) as info:
        import_file("red", RED, ImportOptions("red-trivia-zz"), write=False, packs_dir=PACKS_DIR)
    assert "topic red-trivia-zz is not a shipped topic; pass --topic TOPIC" in str(info.value)
    assert not (PACKS_DIR / "red-trivia-zz.yaml").exists()


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"pack": "!!!"}, "has no letters or digits"),
        ({"pack": "p", "topic": "Not A Topic"}, "topic 'Not A Topic' is not valid"),
        ({"pack": "p", "source": "ftp://x"}, "not an http(s) URL"),
        ({"pack": "p", "roles": ("ceo",)}, "role must be pm, eng or both"),
        ({"pack": "p", "difficulty": 5}, "difficulty must be 1, 2 or 3"),
    ],
)
def test_bad_options_are_user_errors(options: dict[str, Any], expected: str) -> None:
    with pytest.raises(UserError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        ImportOptions(**options)


def test_other_guards(tmp_path: Path, out_dir: Path) -> None:
    _refused("red", tmp_path / "missing.yaml", out_dir, "no such file")
    _refused("xml", RED, out_dir, "unknown format 'xml'")
    with pytest.raises(UserError, match=r"must end in \.yaml"):
        import_file("red", RED, ImportOptions("x"), out=tmp_path / "x.txt")


def test_slugs_and_ids() -> None:
    assert slugify("¿Quieres que le pregunte?") == "quieres-que-le-pregunte"
    assert slugify("a" * 10 + " " + "b" * 70, 20) == "aaaaaaaaaa"
    ids = unique_ids("pack", ["Same?", "Same!", "日本語", ""])
    assert ids == ["pack-same", "pack-same-2", "pack-3", "pack-4"]
    assert all(len(i) <= 64 for i in unique_ids("p" * 80, ["word " * 40]))


# --- the command line ----------------------------------------------------------------------------


def test_cli_import_writes_and_reports(out_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    code = main(
        [
            "content",
            "import",
            "--from",
            "red",
            str(RED),
            "--pack",
            "trivia",
            "--packs-dir",
            str(out_dir),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("imported 5 questions from red-trivia-example.yaml (Red trivia list)")
    assert out.rstrip().endswith("pack 'trivia', lint ok")
    assert (out_dir / "trivia.yaml").is_file()


def test_cli_import_failure_exits_2_and_writes_nothing(
    tmp_path: Path, out_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    bad = _write(tmp_path, "bad.yaml", "Q?: answer\n")
    code = main(
        ["content", "import", "--from", "red", str(bad), "--pack", "x", "--packs-dir", str(out_dir)]
    )
    err = capsys.readouterr().err.splitlines()
    assert code == 2
    assert err[0].endswith("(1 problem); nothing was written:")
    assert err[1].startswith("  - bad.yaml: line 1: question 'Q?'")
    assert list(out_dir.iterdir()) == []
    code = main(
        [
            "content",
            "import",
            "--from",
            "red",
            str(RED),
            "--pack",
            "x",
            "--role",
            "cto",
            "--packs-dir",
            str(out_dir),
        ]
    )
    assert code == 2
    assert "role must be pm, eng or both" in capsys.readouterr().err


def test_cli_import_to_stdout_prints_the_pack(
    out_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    code = main(
        [
            "content",
            "import",
            "--from",
            "opentdb",
            str(OPENTDB),
            "--pack",
            "otdb",
            "--out",
            "-",
            "--packs-dir",
            str(out_dir),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("# Imported from Open Trivia DB file opentdb-response.json")
    assert "pack: otdb" in out
    assert list(out_dir.iterdir()) == []


# --- never a crash: a ContentError/UserError or a pack --------------------------------------------


def _pack_or_content_error(parser: Any, text: str) -> None:
    try:
        imported = parser(text, "fuzz.txt")
        data, _origins = assemble(imported, ImportOptions("fuzz", source="https://x.org"))
        parse_pack(data, "fuzz")
    except (ContentError, UserError) as exc:
        assert str(exc).strip()


_TEXTY = st.text(
    alphabet=st.sampled_from([*'ab, \t\n\r"|;#:<>&\\x{}', "\x00", "é", "\u2028"]),
    max_size=200,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=200), _TEXTY))
def test_anki_text_parser_never_crashes(text: str) -> None:
    _pack_or_content_error(parse_anki_text, text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.text(max_size=200),
        _TEXTY,
        _TEXTY.map(lambda t: "prompt,answer,kind,choices,sources,rubric\n" + t),
    )
)
def test_csv_parser_never_crashes(text: str) -> None:
    _pack_or_content_error(parse_csv, text)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=200), _TEXTY.map(lambda t: "Q?:\n- " + t)))
def test_red_parser_never_crashes(text: str) -> None:
    _pack_or_content_error(parse_red, text)


def test_cli_import_to_stdout_without_studybot_packs_is_not_held_to_the_shipped_rules(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A pack printed goes into no folder: the bundled folder's rules (shipped topics only)
    are not the user's, and neither is its name."""
    from bot.cli import main

    monkeypatch.delenv("STUDYBOT_PACKS", raising=False)
    monkeypatch.chdir(tmp_path)
    argv = ["content", "import", "--from", "opentdb", str(OPENTDB), "--pack", "trivia"]
    code = main([*argv, "--out", "-"])
    captured = capsys.readouterr()
    assert (code, captured.err) == (0, "")
    assert "pack: trivia" in captured.out and "topic: trivia" in captured.out
    assert list(tmp_path.iterdir()) == [] and not (PACKS_DIR / "trivia.yaml").exists()


def _unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = _write(tmp_path, "locked.json", OPENTDB.read_text(encoding="utf-8"))
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self == path:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    return path


_IMPORT_ERRORS = [
    ("missing input", "missing.json: no such file"),
    ("input is a directory", "is a directory, not a file to import"),
    ("unreadable input", "locked.json: cannot read: Permission denied"),
    ("unknown format", "invalid choice: 'xml' (choose from 'red', 'anki', 'opentdb', 'csv')"),
    ("input in another format", "not an Anki package (not a zip file)"),
    ("output folder missing", "no-such-folder: no such directory (create it first)"),
    ("output is a folder", "is a directory: name the pack file, e.g. "),
]


# Printing the pack (``--out -``) names no output file: the output cases are file-only.
@pytest.mark.parametrize(
    ("case", "expected", "to_stdout"),
    [
        *((case, expected, False) for case, expected in _IMPORT_ERRORS),
        *((c, e, True) for c, e in _IMPORT_ERRORS if not c.startswith("output")),
    ],
)
def test_cli_import_errors_are_friendly_exit_2_and_write_nothing(
    case: str,
    expected: str,
    to_stdout: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bot.cli import main

    fmt, source, out = "opentdb", OPENTDB, str(tmp_path / "out" / "trivia.yaml")
    (tmp_path / "out").mkdir()
    if case == "missing input":
        source = tmp_path / "missing.json"
    elif case == "input is a directory":
        source = tmp_path
    elif case == "unreadable input":
        source = _unreadable(tmp_path, monkeypatch)
    elif case == "unknown format":
        fmt = "xml"
    elif case == "input in another format":
        fmt = "anki"
        source = _write(tmp_path, "deck.apkg", OPENTDB.read_text(encoding="utf-8"))
    elif case == "output folder missing":
        out = str(tmp_path / "no-such-folder" / "trivia.yaml")
    elif case == "output is a folder":
        out = str(tmp_path / "out")
    before = sorted(tmp_path.rglob("*"))
    argv = ["content", "import", "--from", fmt, str(source), "--pack", "trivia", "--topic", "mig"]
    code = _exit_code(main, [*argv, "--out", "-" if to_stdout else out])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""  # nothing half-written on stdout either
    assert expected in captured.err
    assert "Traceback" not in captured.err
    assert sorted(tmp_path.rglob("*")) == before


def _exit_code(main: Any, argv: list[str]) -> object:
    """What the command exits with, argparse's own refusals (SystemExit) included."""
    try:
        code: object = main(argv)
    except SystemExit as exc:
        code = exc.code
    return code
