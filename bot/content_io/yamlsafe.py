"""YAML reading for imports: safe, refusing duplicate keys, with line numbers for messages."""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node

from bot.core.content import MAX_YAML_BYTES, yaml_bounds_problem
from bot.core.errors import ContentError


class _StrictLoader(yaml.SafeLoader):
    """A SafeLoader that refuses a key given twice in one mapping (YAML would keep the last)."""


def _mapping(loader: _StrictLoader, node: MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    seen: set[Any] = set()
    for key_node, _value in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            duplicate = key in seen
            seen.add(key)
        except TypeError:
            continue  # unhashable: construct_mapping below says so
        if duplicate:
            raise ConstructorError(None, None, f"key {key!r} is given twice", key_node.start_mark)
    return loader.construct_mapping(node, deep=True)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def yaml_error(name: str, exc: yaml.YAMLError) -> str:
    """One line saying where and why YAML could not be read."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    context = getattr(exc, "context", None)
    detail = f"{context}, {problem}" if context else str(problem)
    return f"{name}: not valid YAML{where}: {' '.join(detail.split())}"


def load_yaml(text: str, name: str) -> tuple[Any, dict[Any, int]]:
    """Parse one YAML document; return it and the line of each top-level key.

    Raises ContentError with one line when the text is not valid YAML, holds
    several documents, repeats a key, is larger than ``MAX_YAML_BYTES``, or holds more
    than ``MAX_YAML_NODES`` nodes once its aliases are expanded.
    """
    if len(text) > MAX_YAML_BYTES:
        raise ContentError([f"{name}: larger than {MAX_YAML_BYTES // (1024 * 1024)} MiB"])
    try:
        loader = _StrictLoader(text)
    except yaml.YAMLError as exc:
        raise ContentError([yaml_error(name, exc)]) from exc
    try:
        node: Node | None = loader.get_single_node()
        if node is None:
            return None, {}
        problem = yaml_bounds_problem(node, name)
        if problem is not None:
            raise ContentError([problem])
        data = loader.construct_document(node)
        lines: dict[Any, int] = {}
        if isinstance(node, MappingNode):
            for key_node, _value in node.value:
                try:
                    key = loader.construct_object(key_node, deep=True)
                    lines.setdefault(key, key_node.start_mark.line + 1)
                except (TypeError, yaml.YAMLError):
                    continue
        return data, lines
    except yaml.YAMLError as exc:
        raise ContentError([yaml_error(name, exc)]) from exc
    except RecursionError as exc:
        raise ContentError([f"{name}: not valid YAML: nested too deeply"]) from exc
    finally:
        loader.dispose()
