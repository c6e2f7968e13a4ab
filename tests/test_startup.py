"""A start of the bot is quick: packs validated once per content, no migration tooling on a
current database, and nothing imported that the command does not need; a changed pack is
still validated and rejected as clearly as before."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from bot.core import content
from bot.core.bank import QuestionBank
from bot.core.content import ValidatedPacks, load_packs
from bot.core.errors import ContentError
from bot.db import migrate

GOOD = """\
pack: cached
title: Cached
questions:
  - id: cached-one
    topic: mig
    role: [eng]
    difficulty: 1
    kind: short
    prompt: "Which flag enables MIG mode?"
    answers: ["-mig 1"]
    explanation: "nvidia-smi -i 0 -mig 1."
    sources: ["https://docs.nvidia.com/datacenter/tesla/mig-user-guide/"]
"""


def _problems(paths: list[Path], validated: ValidatedPacks | None) -> list[str]:
    with pytest.raises(ContentError) as caught:
        load_packs(paths, validated)
    return caught.value.problems


def test_a_pack_validated_once_loads_the_same_from_the_cache(tmp_path: Path) -> None:
    pack = tmp_path / "cached.yaml"
    pack.write_text(GOOD, encoding="utf-8")
    cache = tmp_path / "cache" / "validated-packs"
    first = load_packs([pack], ValidatedPacks(cache))
    assert cache.read_text(encoding="ascii").split() == [ValidatedPacks.key_of(pack.read_bytes())]
    second = load_packs([pack], ValidatedPacks(cache))
    assert second == first == load_packs([pack])


def test_a_pack_changed_after_it_was_validated_is_validated_again(tmp_path: Path) -> None:
    pack = tmp_path / "cached.yaml"
    pack.write_text(GOOD, encoding="utf-8")
    cache = tmp_path / "validated-packs"
    load_packs([pack], ValidatedPacks(cache))
    pack.write_text(GOOD.replace("difficulty: 1", "difficulty: 7"), encoding="utf-8")
    with_cache = _problems([pack], ValidatedPacks(cache))
    assert with_cache == _problems([pack], None)
    assert any("question 'cached-one' field difficulty" in p for p in with_cache)
    # the bad bytes are not remembered as valid
    assert _problems([pack], ValidatedPacks(cache)) == with_cache
    assert len(cache.read_text(encoding="ascii").split()) == 1


def test_a_rule_the_schema_cannot_say_is_checked_on_a_changed_pack(tmp_path: Path) -> None:
    pack = tmp_path / "cached.yaml"
    pack.write_text(GOOD, encoding="utf-8")
    cache = tmp_path / "validated-packs"
    load_packs([pack], ValidatedPacks(cache))
    bad_choice = GOOD.replace('answers: ["-mig 1"]', 'choices: ["a", "b"]\n    answer: "c"')
    pack.write_text(bad_choice.replace("kind: short", "kind: choice"), encoding="utf-8")
    assert _problems([pack], ValidatedPacks(cache)) == [
        f"{pack}: question 'cached-one': answer 'c' is not one of the choices"
    ]


def test_new_rules_or_a_new_schema_validate_every_pack_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = GOOD.encode("utf-8")
    before = ValidatedPacks.key_of(raw)
    monkeypatch.setattr(content, "VALIDATION_RULES", "next")
    assert ValidatedPacks.key_of(raw) != before
    monkeypatch.undo()
    monkeypatch.setattr(content, "_schema_digest", lambda: b"another schema")
    assert ValidatedPacks.key_of(raw) != before


@pytest.mark.parametrize("junk", [b"\xff\xfe not ascii", b"", b"0" * 64 + b"\n"])
def test_a_broken_or_stale_cache_file_only_means_validating(tmp_path: Path, junk: bytes) -> None:
    pack = tmp_path / "cached.yaml"
    pack.write_text(GOOD.replace("difficulty: 1", "difficulty: 9"), encoding="utf-8")
    cache = tmp_path / "validated-packs"
    cache.write_bytes(junk)
    assert any("difficulty" in p for p in _problems([pack], ValidatedPacks(cache)))


def test_an_unwritable_cache_does_not_stop_the_bank_from_loading(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory would be", encoding="utf-8")
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "cached.yaml").write_text(GOOD, encoding="utf-8")
    bank = QuestionBank.load(
        bundled=packs, validated=ValidatedPacks(blocker / "studybot" / "validated-packs")
    )
    assert [q.id for q in bank] == ["cached-one"]


def test_the_heads_read_from_the_migration_files_are_alembics() -> None:
    assert migrate.shipped_heads() == set(migrate.scripts().get_heads())


def test_a_database_is_current_only_at_the_newest_revision(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'heads.db'}")
    try:
        assert not migrate.is_current(engine)
        migrate.upgrade(engine, "0001_initial")
        assert not migrate.is_current(engine)
        migrate.upgrade(engine)
        assert migrate.is_current(engine)
    finally:
        engine.dispose()


def test_migration_files_without_plain_revision_literals_leave_it_to_alembic(
    tmp_path: Path,
) -> None:
    (tmp_path / "0001_a.py").write_text("revision = 'a'\ndown_revision = None\n")
    (tmp_path / "0002_b.py").write_text("revision = 'b'\ndown_revision = ('a',)\n")
    assert migrate.shipped_heads(tmp_path) == {"b"}
    (tmp_path / "0003_c.py").write_text("revision = name()\ndown_revision = 'b'\n")
    assert migrate.shipped_heads(tmp_path) is None


def test_the_heads_are_read_again_when_a_migration_file_changes(tmp_path: Path) -> None:
    """They are parsed once per set of files, not once per start: a file rewritten in place
    (another size or time) is read again."""
    first = tmp_path / "0001_a.py"
    first.write_text("revision = 'a'\ndown_revision = None\n")
    assert migrate.shipped_heads(tmp_path) == {"a"}
    first.write_text("revision = 'ab'\ndown_revision = None\n")
    os.utime(first, ns=(first.stat().st_atime_ns, first.stat().st_mtime_ns + 1_000_000))
    assert migrate.shipped_heads(tmp_path) == {"ab"}


def test_a_console_start_on_a_current_database_loads_no_tool_it_does_not_use(
    tmp_path: Path,
) -> None:
    db = f"sqlite:///{tmp_path / 'console.db'}"
    engine = create_engine(db)
    migrate.upgrade(engine)
    engine.dispose()
    probe = (
        "import sys\n"
        "from bot.adapters.console.run import run_console\n"
        "from bot.bootstrap import bootstrap\n"
        "from bot.config import Settings\n"
        f"settings = Settings(studybot_database_url={db!r},"
        f" studybot_cache_dir={str(tmp_path / 'cache')!r})\n"
        "for _ in range(2):\n"  # the second start finds the packs validated
        "    for name in [m for m in sys.modules if m.startswith('jsonschema')]:\n"
        "        del sys.modules[name]\n"
        "    bootstrap(settings).engine.dispose()\n"
        "tools = ('alembic', 'jsonschema', 'dateparser', 'icalendar', 'prompt_toolkit',"
        " 'starlette', 'rich')\n"
        "print(sorted(m for m in tools if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_command_line_called_from_code_leaves_the_garbage_collector_alone() -> None:
    from bot.cli import main

    before = gc.get_freeze_count()
    with pytest.raises(SystemExit):
        main(["--help"])
    assert main(["content"]) == 2  # a group without an action prints its help
    assert gc.get_freeze_count() == before


def test_the_program_exits_with_its_command_s_code_once_its_objects_are_frozen(
    tmp_path: Path,
) -> None:
    probe = (
        "import gc, sys\n"
        "from bot.cli import main\n"
        "sys.argv = ['studybot', 'grade', '--pack', 'missing.yaml', '--id', 'x', 'an answer']\n"
        "code = main()\n"
        "print(code, gc.get_freeze_count() > 0)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path
    )
    assert result.stdout.strip() == "2 True", result.stderr
