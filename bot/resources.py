"""Files that ship inside the package: the question packs, their schema, the migrations.

Contributors edit them in the top-level ``content/`` and ``migrations/`` directories; setup.py
installs those as the packages ``bot.content`` and ``bot.migrations`` (an editable install maps
them to the checkout), and they are found here through importlib.resources, never through
the location of the source tree.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def package_dir(package: str) -> Path:
    """The directory of an installed package of data files."""
    root = files(package)
    if not isinstance(root, Path):  # a zip import: Alembic and the loaders need real files
        raise RuntimeError(f"studybot must be installed as files, not imported from {root}")
    return root


CONTENT_DIR = package_dir("bot.content")
SCHEMA_PATH = CONTENT_DIR / "schema.json"
PACKS_DIR = CONTENT_DIR / "packs"
MIGRATIONS_DIR = package_dir("bot.migrations")
