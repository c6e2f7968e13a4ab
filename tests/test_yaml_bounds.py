"""YAML is bounded before anything is built from it: a "billion laughs" file, an alias that
contains itself, or a file over the size bound is refused with one line, on the pack loader
(what the bot and `content lint` read) and on the import reader alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.content_io.red import parse_red
from bot.content_io.yamlsafe import load_yaml
from bot.core.content import MAX_YAML_BYTES, load_pack, read_yaml
from bot.core.errors import ContentError

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "content" / "packs" / "sample.yaml"


def laughs(levels: int = 9, width: int = 9) -> str:
    """The classic: each level lists the one before ``width`` times (width**levels nodes)."""
    lines = ['a0: &a0 "lol"']
    for n in range(1, levels + 1):
        lines.append(f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * width)}]")
    return "\n".join(lines) + f"\nquestions: *a{levels}\n"


SELF_REFERENCE = "pack: x\nloop: &me [1, *me]\n"


def test_a_billion_laughs_pack_is_refused_with_one_line(tmp_path: Path) -> None:
    bomb = tmp_path / "laughs.yaml"
    bomb.write_text(laughs())
    assert len(bomb.read_bytes()) < 1000
    with pytest.raises(ContentError) as raised:
        load_pack(bomb)
    (problem,) = raised.value.problems
    assert "too large once its aliases are expanded" in problem


def test_a_billion_laughs_import_is_refused_with_one_line() -> None:
    with pytest.raises(ContentError) as raised:
        parse_red(laughs(), "laughs.yaml")
    assert "too large once its aliases are expanded" in " ".join(raised.value.problems)
    with pytest.raises(ContentError):
        load_yaml(laughs(), "laughs.yaml")


def test_an_alias_that_contains_itself_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "loop.yaml"
    path.write_text(SELF_REFERENCE)
    for read in (lambda: read_yaml(path), lambda: load_yaml(SELF_REFERENCE, "loop.yaml")):
        with pytest.raises(ContentError) as raised:
            read()
        assert "refers to a node that contains it" in " ".join(raised.value.problems)


def test_a_file_over_the_size_bound_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * MAX_YAML_BYTES + "\npack: x\n")
    with pytest.raises(ContentError) as raised:
        load_pack(big)
    assert "larger than" in raised.value.problems[0]
    with pytest.raises(ContentError):
        load_yaml(big.read_text(), "big.yaml")


def test_modest_aliases_and_the_shipped_packs_still_load(tmp_path: Path) -> None:
    assert load_pack(SAMPLE).questions
    small = laughs(levels=3, width=3)  # 27 leaves: an ordinary use of anchors
    data, _ = load_yaml(small, "small.yaml")
    assert len(data["questions"]) == 3
