"""The question packs and their schema; installed as the package ``bot.content`` (see setup.py)."""
