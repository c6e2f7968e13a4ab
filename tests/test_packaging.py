"""An installed studybot carries its question packs, their schema and its migrations inside
the package and finds them through importlib.resources: nothing at run time reads the
checkout. (.ci/run builds the wheel and runs it from an empty directory; these tests keep the
packaging rules that make that work.)"""

from __future__ import annotations

import ast
import fnmatch
import tomllib
from pathlib import Path

from bot import resources

ROOT = Path(__file__).resolve().parents[1]


def setup_packages() -> tuple[dict[str, str], list[str]]:
    """setup.py's BUNDLED mapping and DATA_ONLY list, read without running setup()."""
    values: dict[str, object] = {}
    for node in ast.parse((ROOT / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = ast.literal_eval(node.value)
    bundled, data_only = values["BUNDLED"], values["DATA_ONLY"]
    assert isinstance(bundled, dict) and isinstance(data_only, list)
    return bundled, data_only


def test_the_bundled_files_are_found_through_the_package() -> None:
    # the editable install maps bot.content and bot.migrations to the top-level folders
    assert resources.PACKS_DIR.samefile(ROOT / "content" / "packs")
    assert resources.SCHEMA_PATH.samefile(ROOT / "content" / "schema.json")
    assert resources.MIGRATIONS_DIR.samefile(ROOT / "migrations")
    assert (resources.MIGRATIONS_DIR / "env.py").is_file()


def test_every_file_of_content_and_migrations_goes_into_the_wheel() -> None:
    bundled, data_only = setup_packages()
    assert bundled == {"bot.content": "content", "bot.migrations": "migrations"}
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns: dict[str, list[str]] = data["package-data"]
    folders = {folder: package for package, folder in bundled.items()}
    missing = []
    for top in folders:
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_dir() or "__pycache__" in path.parts:
                continue
            parts = path.relative_to(ROOT).parts
            package = ".".join([folders[parts[0]], *parts[1:-1]])
            listed = package in bundled or package in data_only
            is_module = path.suffix == ".py" and listed
            is_data = any(fnmatch.fnmatch(path.name, p) for p in patterns.get(package, []))
            if not (is_module or is_data):
                missing.append(str(path.relative_to(ROOT)))
    assert missing == []


def test_nothing_in_the_package_finds_files_next_to_its_source() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "bot").rglob("*.py"))
        if "__file__" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
