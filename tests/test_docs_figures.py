"""The figures the README and docs/questions.md give for the bank are what the bank and
``studybot content lint`` say today: the table of packs and the lint's own output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.core.content import PACKS_DIR, TOPICS, Pack, load_packs, pack_files

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("choice", "multi", "numeric", "short", "open")


def _row(topic: str, title: str, packs: list[Pack]) -> list[str]:
    questions = [q for p in packs for q in p.questions]
    levels = " / ".join(str(sum(q.difficulty == d for q in questions)) for d in (1, 2, 3))
    return [
        topic,
        title,
        str(len(questions)),
        *(str(sum(q.kind == k for q in questions)) for k in KINDS),
        *(str(sum(r in q.roles for q in questions)) for r in ("pm", "eng")),
        levels,
        str(sum(len(q.examples) for q in questions)),
    ]


def bank_table() -> list[list[str]]:
    """The README's table of the bank, one row a topic's pack and a total, from the packs."""
    packs = {p.pack: p for p in load_packs(pack_files(PACKS_DIR))}
    rows = [[f"`{t}`", packs[t].title, *_row(t, "", [packs[t]])[2:]] for t in TOPICS]
    total = _row("", "", [packs[t] for t in TOPICS])
    return [*rows, ["**total**", "", f"**{total[2]}**", *total[3:]]]


def table_in(text: str, header: str) -> list[list[str]]:
    lines = text[text.index(header) :].splitlines()[2:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


HEADER = "| topic | pack | questions |"


@pytest.mark.parametrize("doc", ["README.md", "docs/questions.md"])
def test_the_table_of_the_bank_is_the_bank(doc: str) -> None:
    assert table_in((ROOT / doc).read_text(encoding="utf-8"), HEADER) == bank_table()


def test_the_readme_shows_what_content_lint_prints(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.cli import main

    monkeypatch.chdir(ROOT)
    assert main(["content", "lint"]) == 0
    printed = capsys.readouterr().out
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"```text\n\$ studybot content lint\n(.*?)```", readme, re.S)
    assert shown is not None
    assert shown.group(1) == printed
    ok = printed.splitlines()[-1]
    held = re.fullmatch(r"ok: \d+ questions, (\d+) of (\d+) examples hold, no problems", ok)
    assert held is not None and held.group(1) == held.group(2)
    assert f"**{held.group(1)} of {held.group(2)} hold**" in readme
    assert f"`{ok}`" in (ROOT / "docs" / "questions.md").read_text(encoding="utf-8").replace(
        "\n", " "
    )
