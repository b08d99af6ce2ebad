"""Every paper in the registry goes through the same checks (DESIGN.md, "A claim check"; CONTRIBUTING.md)."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import re
from pathlib import Path

import pytest

import icml26
from icml26 import registry
from icml26.claims import Basis, Budget, Verdict
from icml26.harness import run_claim
from support.badinput import Entry, cases
from support.planted import Planted, load_planted

PAPERS = [p for p in icml26.list_papers() if not registry.missing_requirements(p)]
SMOKE = [(p.slug, c.id) for p in PAPERS for c in p.claims]
CLAIMS = [(p, c) for p in icml26.list_papers() for c in p.claims]
TESTS = Path(__file__).resolve().parent
#: DESIGN.md: a smoke claim takes <= 10 s on 2 cores. Checked on the CPU time of the process (robust to a loaded
#: machine), with a wall-clock backstop for claims that wait or sleep.
SMOKE_CPU_S = 10.0
SMOKE_WALL_S = 30.0
#: a paper_value naming GPU hardware makes the claim a GPU claim (platform = "gpu")
GPU_WORDS = re.compile(r"\b(GPU|CUDA|cuBLAS|cuSPARSE|RTX|A100|H100|H200|V100|A6000|TPU)\b")
#: words of ours that do not belong in the paper's words (they go to a bar)
OUR_WORDS = re.compile(r"\b(bar|bars|our task|we judge|judged here|issue)\b", re.I)


def _cid(pc):
    return f"{pc[0].slug}:{pc[1].id}"


def test_every_paper_can_be_tested_here():
    missing = {p.slug: registry.missing_requirements(p) for p in icml26.list_papers() if registry.missing_requirements(p)}
    assert not missing, f"extras missing in the test environment: {missing}"


@pytest.mark.parametrize("info", PAPERS, ids=lambda p: p.slug)
def test_paper_package(info):
    for f in ("paper.toml", "__init__.py", "claims.py", "_rules.py", "README.md"):
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


@pytest.mark.parametrize("pc", CLAIMS, ids=_cid)
def test_claim_says_what_it_is_about(pc):
    """The paper's words apart from our bars; a bar with its provenance; a basis with its reason; the platform rule."""
    info, spec = pc
    assert not OUR_WORDS.search(spec.text), f"text is the paper's claim in its own terms: {spec.text!r}"
    assert not OUR_WORDS.search(spec.paper_value), f"paper_value is the paper's number only: {spec.paper_value!r}"
    assert spec.bars, "every claim declares its bars (name, op, value, provenance, why) in paper.toml"
    for bar in spec.bars:
        assert bar.provenance in ("paper", "notes", "ours") and len(bar.why) >= 10, bar
        assert bar.text, f"bar {bar.name!r}: say in words what is compared"
    if spec.basis is not Basis.PAPER:
        assert len(spec.basis_note) >= 15, "a basis other than 'paper' says why"
    if GPU_WORDS.search(spec.paper_value) or GPU_WORDS.search(spec.text):
        assert spec.platform == "gpu", "a claim about GPU hardware declares platform = 'gpu' (unsupported on a CPU)"


@pytest.mark.parametrize("info", PAPERS, ids=lambda p: p.slug)
def test_rules_judge_planted_rows_both_ways(info):
    """A check that cannot fail is a defect: each claim's rule, fed a planted pass and a planted fail with the
    declared bars, gives holds and fails (and the same at other sizes: no bar moves with the budget)."""
    rules = importlib.import_module(f"{info.module}._rules")
    table = getattr(rules, "RULES", None)
    unjudged = getattr(rules, "UNJUDGED", {})
    assert isinstance(table, dict), f"{info.slug}/_rules.py defines RULES: {{claim id: rule}}"
    planted = load_planted(info.slug).PLANTED
    for spec in info.claims:
        if spec.id in unjudged:
            assert len(unjudged[spec.id]) >= 20, f"{spec.id}: UNJUDGED needs the reason"
            continue
        assert spec.id in table, f"{spec.id} has no rule in RULES (or a reason in UNJUDGED)"
        p = planted.get(spec.id)
        assert isinstance(p, Planted), f"tests/papers/{info.slug}/planted.py lacks PLANTED[{spec.id!r}]"
        for holds, fails in ((p.holds, p.fails), *p.budget_variants):
            got = table[spec.id](**holds, bars=spec.bar_map)
            assert got.verdict is Verdict.HOLDS, f"{spec.id}: planted pass gave {got.verdict.value}: {got.reason}"
            got = table[spec.id](**fails, bars=spec.bar_map)
            assert got.verdict is Verdict.FAILS, f"{spec.id}: planted fail gave {got.verdict.value}: {got.reason}"


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


def _entry_points(slug: str) -> list[Entry]:
    path = TESTS / "papers" / slug / "entry_points.py"
    spec = importlib.util.spec_from_file_location(f"entry_points_{slug}", path)
    assert spec and spec.loader and path.is_file(), f"{path}: every paper lists its public entry points"
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return list(mod.ENTRY_POINTS)


@pytest.mark.parametrize("info", PAPERS, ids=lambda p: p.slug)
def test_bad_input_is_refused_naming_the_argument(info):
    """NaN, inf, a wrong ndim, empty, a wrong dtype, a bool for an int: a ValueError/TypeError naming the argument,
    never a silent wrong answer (tests/support/badinput.py)."""
    entries = _entry_points(info.slug)
    assert entries, f"{info.slug}: list at least the main entry points"
    wrong = []
    for e in entries:
        e.fn(**e.valid)  # the valid call works, so every refusal below is the spoiled argument's
        for arg, label, kw in cases(e):
            want = e.match.get(arg, arg)
            try:
                e.fn(**kw)
            except (ValueError, TypeError) as exc:
                if want not in str(exc):
                    wrong.append(f"{e.name}({arg}={label}): {type(exc).__name__} without {want!r}: {exc}"[:200])
            except Exception as exc:  # noqa: BLE001 - any other exception is an unclear error
                wrong.append(f"{e.name}({arg}={label}): {type(exc).__name__}: {exc}"[:200])
            else:
                wrong.append(f"{e.name}({arg}={label}): accepted")
    assert not wrong, f"{info.slug}: {len(wrong)} bad inputs not refused clearly:\n" + "\n".join(wrong)


@pytest.mark.parametrize("info", PAPERS, ids=lambda p: p.slug)
def test_readme_example_runs(info, tmp_path, monkeypatch):
    text = (info.path / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, f"{info.slug}/README.md has no ```python example"
    monkeypatch.chdir(tmp_path)  # an example that writes files writes them here
    exec(compile(blocks[0], f"{info.slug}/README.md", "exec"), {"__name__": "__readme__"})
    assert re.search(r"\d", text), "README shows no measured number"


@pytest.mark.parametrize(("slug", "claim"), SMOKE, ids=[f"{s}:{c}" for s, c in SMOKE])
def test_smoke_claim_runs_in_budget_and_is_deterministic(slug, claim):
    a = run_claim(slug, claim, budget="smoke", seed=0)
    assert a.verdict != "error", a.error
    assert a.cpu_s <= SMOKE_CPU_S, f"smoke used {a.cpu_s} s of CPU (cap {SMOKE_CPU_S} s)"
    # the wall cap catches a claim that waits (sleeps, spawns, downloads); on a machine other jobs keep busy the wall
    # stretches with the load, so the cap does too (CPU time, capped above, is what the claim itself costs)
    busy = max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    assert a.duration_s <= SMOKE_WALL_S * busy, f"smoke took {a.duration_s} s of wall time (cap {SMOKE_WALL_S * busy:.0f} s)"
    b = run_claim(slug, claim, budget="smoke", seed=0)  # a fresh memo: everything is recomputed
    assert a.measured == b.measured, "smoke measured numbers differ between two runs with the same seed"
    assert a.reason and a.basis in {x.value for x in Basis}
