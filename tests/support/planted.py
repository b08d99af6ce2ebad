"""The planted inputs a paper's rules must judge both ways (see tests/test_conformance.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Planted:
    """Keyword arguments (all but ``bars``) for one claim's rule: ``holds`` must give holds, ``fails`` must fail.

    ``budget_variants`` are further (holds, fails) pairs at other sizes (more seeds, longer runs) that must give the
    same verdicts: a bar that moves with the budget shows up here.
    """

    holds: Mapping[str, Any]
    fails: Mapping[str, Any]
    budget_variants: tuple[tuple[Mapping[str, Any], Mapping[str, Any]], ...] = field(default_factory=tuple)


def load_planted(slug: str) -> Any:
    """The module ``tests/papers/<slug>/planted.py`` (file names repeat across papers, so loaded by path)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "papers" / slug / "planted.py"
    spec = importlib.util.spec_from_file_location(f"planted_{slug}", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise FileNotFoundError(f"{path}: every paper lists planted inputs for its rules")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
