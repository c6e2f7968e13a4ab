"""The Alembic environment; installed as the package ``bot.migrations`` (see setup.py)."""
