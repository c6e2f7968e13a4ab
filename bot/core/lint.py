"""Content lint: everything wrong with a set of packs, in one readable report."""

from __future__ import annotations

from pathlib import Path

from bot.core.content import PACKS_DIR, load_packs, pack_files
from bot.core.errors import ContentError


def expand(paths: list[Path]) -> list[Path]:
    """Pack files named directly or found in named folders; content/packs when none."""
    if not paths:
        return pack_files(PACKS_DIR)
    files: list[Path] = []
    for path in paths:
        files.extend(pack_files(path) if path.is_dir() else [path])
    return files


def lint_paths(paths: list[Path]) -> tuple[list[str], int]:
    """Return (problems, number of questions checked) for the packs at ``paths``."""
    files = expand(paths)
    if not files:
        return ([f"no pack files found in {', '.join(map(str, paths)) or PACKS_DIR}"], 0)
    try:
        packs = load_packs(files)
    except ContentError as exc:
        return (exc.problems, 0)
    return ([], sum(len(p.questions) for p in packs))
