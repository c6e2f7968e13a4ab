"""Import question packs from other tools and export them back.

Importers (one module per format) read a foreign file into drafts;
:mod:`bot.content_io.importer` fills the content contract's defaults,
validates, lints and writes the pack; :mod:`bot.content_io.export` writes
Anki text and CSV. This lives outside ``bot.core`` because it reads zip files
and Anki's SQLite collections.
"""

from __future__ import annotations

from bot.content_io.common import Imported, ImportOptions
from bot.content_io.export import FORMATS as EXPORT_FORMATS
from bot.content_io.export import export_packs, select_packs
from bot.content_io.importer import FORMATS as IMPORT_FORMATS
from bot.content_io.importer import ImportResult, import_file, read_source

__all__ = [
    "EXPORT_FORMATS",
    "IMPORT_FORMATS",
    "ImportOptions",
    "ImportResult",
    "Imported",
    "export_packs",
    "import_file",
    "read_source",
    "select_packs",
]
