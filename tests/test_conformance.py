"""Every paper in the registry goes through the same checks (DESIGN.md, "A claim check")."""

from __future__ import annotations

import importlib
import inspect
import re
import sys

import pytest

import icml26
from icml26 import registry
from icml26.claims import Budget, run_claim

PAPERS = [p for p in icml26.list_papers() if not registry.missing_requirements(p)]
SMOKE = [(p.slug, c.id) for p in PAPERS for c in p.claims]
#: DESIGN.md: a smoke claim takes <= 10 s on 2 cores. Checked on the CPU time of the process (robust to a loaded
#: machine), with a wall-clock backstop for claims that wait or sleep.
SMOKE_CPU_S = 10.0
SMOKE_WALL_S = 30.0


def test_every_paper_can_be_tested_here():
    missing = {p.slug: registry.missing_requirements(p) for p in icml26.list_papers() if registry.missing_requirements(p)}
    assert not missing, f"extras missing in the test environment: {missing}"


@pytest.mark.parametrize("info", PAPERS, ids=lambda p: p.slug)
def test_paper_package(info):
    for f in ("paper.toml", "__init__.py", "claims.py", "README.md"):
        assert (info.path / f).is_file(), f"{info.slug} lacks {f}"
    mod = importlib.import_module(info.module)
    assert mod.__doc__ and len(mod.__doc__.strip().splitlines()) >= 3, "the package docstring is the paper card"
    assert getattr(mod, "__all__", None), f"{info.slug} has no __all__"
    for name in mod.__all__:
        assert hasattr(mod, name), f"{info.slug}.__all__ names {name!r}, which does not resolve"
    claims = registry.load_claims(info.slug)
    for cid, claim in claims.items():
        assert {"smoke", "small"} <= set(claim.budgets), cid
        smoke: Budget = claim.budgets["smoke"]
        assert smoke.expected_s <= 10, f"{cid}: smoke budget expects {smoke.expected_s} s (cap 10 s)"
        assert claim.budgets["small"].expected_s <= 300, f"{cid}: small budget over 5 min"


@pytest.mark.parametrize("info", PAPERS, ids=lambda p: p.slug)
def test_public_api_is_typed_and_cites_the_paper(info):
    """CONTRIBUTING: every public function and class has a docstring that cites its paper (``[Pxx]``, with the
    equation, algorithm or section it implements where there is one) and fully annotated signatures."""
    mod = importlib.import_module(info.module)
    uncited, untyped = [], []
    for name in mod.__all__:
        obj = getattr(mod, name)
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue  # constants
        if f"[{info.id}]" not in (inspect.getdoc(obj) or ""):
            uncited.append(name)
        if inspect.isfunction(obj):
            sig = inspect.signature(obj)
            params = [p for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            if sig.return_annotation is inspect.Signature.empty or any(p.annotation is p.empty for p in params):
                untyped.append(name)
    assert not uncited, f"{info.slug}: docstrings that do not cite [{info.id}]: {uncited}"
    assert not untyped, f"{info.slug}: functions with unannotated parameters or return: {untyped}"


@pytest.mark.parametrize("info", PAPERS, ids=lambda p: p.slug)
def test_readme_example_runs(info, tmp_path, monkeypatch):
    text = (info.path / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, f"{info.slug}/README.md has no ```python example"
    monkeypatch.chdir(tmp_path)  # an example that writes files writes them here
    exec(compile(blocks[0], f"{info.slug}/README.md", "exec"), {"__name__": "__readme__"})
    assert re.search(r"\d", text), "README shows no measured number"


def _clear_paper_caches(slug: str) -> None:
    """Clear every ``functools`` cache defined in the paper's modules."""
    prefix = registry.get_paper(slug).module
    for name, mod in list(sys.modules.items()):
        if name == prefix or name.startswith(prefix + "."):
            for obj in vars(mod).values():
                if callable(getattr(obj, "cache_clear", None)) and getattr(obj, "__module__", "") == name:
                    obj.cache_clear()


@pytest.mark.parametrize(("slug", "claim"), SMOKE, ids=[f"{s}:{c}" for s, c in SMOKE])
def test_smoke_claim_runs_in_budget_and_is_deterministic(slug, claim):
    a = run_claim(slug, claim, budget="smoke", seed=0)
    assert a["verdict"] != "error", a["error"]
    assert a["cpu_s"] <= SMOKE_CPU_S, f"smoke used {a['cpu_s']} s of CPU (cap {SMOKE_CPU_S} s)"
    assert a["duration_s"] <= SMOKE_WALL_S, f"smoke took {a['duration_s']} s of wall time"
    _clear_paper_caches(slug)  # the second run must recompute, not read a cache filled by the first
    b = run_claim(slug, claim, budget="smoke", seed=0)
    assert a["measured"] == b["measured"], "smoke measured numbers differ between two runs with the same seed"
    assert a["reason"]
