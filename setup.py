"""Packaging that pyproject.toml cannot say: packages that live outside ``bot/``.

Contributors keep the question packs in ``content/`` and the Alembic environment in
``migrations/`` at the top of the repository; an install (a wheel, ``pip install .``,
``pip install -e .``) carries them inside the package as ``bot.content`` and ``bot.migrations``,
read through importlib.resources, so nothing at run time reads the checkout.
"""

from setuptools import find_packages, setup

BUNDLED = {"bot.content": "content", "bot.migrations": "migrations"}
DATA_ONLY = ["bot.content.packs", "bot.migrations.versions"]  # folders without __init__.py

setup(
    packages=[*find_packages(include=["bot", "bot.*"]), *BUNDLED, *DATA_ONLY],
    package_dir=BUNDLED,
)
