"""The shape of the code, read as text (no imports): one package layout for every paper, small files and functions,
no review history in the code, one paper-card header, no claim state shared through module caches."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import icml26

SRC = Path(icml26.__file__).resolve().parent
PAPERS = sorted(p.parent for p in (SRC / "papers").glob("*/paper.toml"))
PY = sorted(p for p in SRC.rglob("*.py") if "_native" not in p.parts)
MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 80
#: development history belongs to git and the issue notes, not to the code a user reads
HISTORY = re.compile(r"\b(review(ed)?( round| \d)?|reviewer|issue \d+|session \d+|round \d+)\b", re.I)
CHECK_FILES = ("claims.py", "_rules.py")


def _rel(p: Path) -> str:
    return p.relative_to(SRC.parent).as_posix()


@pytest.mark.parametrize("path", PY, ids=_rel)
def test_file_and_function_sizes(path):
    text = path.read_text(encoding="utf-8")
    n = text.count("\n")
    assert n <= MAX_FILE_LINES, f"{_rel(path)} has {n} lines (cap {MAX_FILE_LINES}): split it by idea"
    long = [f"{node.name} ({node.end_lineno - node.lineno + 1} lines)" for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, f"{_rel(path)}: functions over {MAX_FUNCTION_LINES} lines: {long}"


@pytest.mark.parametrize("path", PY, ids=_rel)
def test_no_review_history_in_the_code(path):
    hits = [f"{i}: {line.strip()[:90]}" for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if HISTORY.search(line) and "openreview" not in line]
    assert not hits, f"{_rel(path)} tells its development history (that belongs to git): {hits}"


#: how a README tells the history of a verdict instead of what it means now
VERDICT_HISTORY = re.compile(r"(\bwas `(holds|fails|inconclusive|unsupported)|verdict(s)? changed|changed meaning"
                             r"|\bno longer\b|\bbefore this re-|\bthan before\b|\breview(ed|er)?\b|\bissue \d+|\bsession \d+)", re.I)


@pytest.mark.parametrize("pkg", PAPERS, ids=lambda p: p.name)
def test_readme_tells_what_a_verdict_means_not_its_history(pkg):
    readme = pkg / "README.md"
    lines = readme.read_text(encoding="utf-8").splitlines() if readme.exists() else []
    hits = [f"{i}: {ln.strip()[:90]}" for i, ln in enumerate(lines, 1) if VERDICT_HISTORY.search(ln) and "openreview" not in ln]
    assert not hits, f"{pkg.name}/README.md tells its development history (it belongs to git and the issue notes): {hits}"


@pytest.mark.parametrize("pkg", PAPERS, ids=lambda p: p.name)
def test_claims_py_holds_only_configs_and_the_claims_table(pkg):
    tree = ast.parse((pkg / "claims.py").read_text(encoding="utf-8"))
    bad = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bad.append(f"def {node.name}")
        elif isinstance(node, ast.ClassDef) and not any(
                "dataclass" in ast.unparse(d) for d in node.decorator_list):
            bad.append(f"class {node.name} (not a config dataclass)")
    assert not bad, f"{pkg.name}/claims.py holds configs and CLAIMS only; move these to _checks*.py: {bad}"
    assert any(isinstance(n, (ast.Assign, ast.AnnAssign)) and "CLAIMS" in ast.unparse(n).split("=")[0]
               for n in tree.body), f"{pkg.name}/claims.py defines no CLAIMS"
    assert (pkg / "_rules.py").is_file(), f"{pkg.name} has no _rules.py (its pure verdict functions over rows)"


def _imports(tree: ast.AST) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


@pytest.mark.parametrize("pkg", PAPERS, ids=lambda p: p.name)
def test_rules_are_pure(pkg):
    """``_rules.py`` judges rows: it imports the verdict vocabulary and light numerics, never a model or a method."""
    mods = _imports(ast.parse((pkg / "_rules.py").read_text(encoding="utf-8")))
    heavy = {m for m in mods if m.split(".")[0] in ("torch", "gymnasium", "stable_baselines3", "tiktoken", "ray")}
    own = {m for m in mods if m.startswith(f"icml26.papers.{pkg.name}.")}
    assert not heavy and not own, f"{pkg.name}/_rules.py imports {sorted(heavy | own)}"


@pytest.mark.parametrize("pkg", PAPERS, ids=lambda p: p.name)
def test_no_claim_state_in_module_caches(pkg):
    """Claims share work through ``ctx.shared`` (one run group), never through a module-level cache that lives on
    between claims (and that a determinism check would read instead of recomputing)."""
    files = [p for p in pkg.glob("*.py") if p.name in CHECK_FILES or p.name.startswith(("_checks", "_experiments"))]
    hits = [f"{p.name}:{i}" for p in files for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if re.search(r"lru_cache|functools\.cache\b|@cache\b", line)]
    assert not hits, f"{pkg.name}: module-level caches in check code: {hits}"


@pytest.mark.parametrize("pkg", PAPERS, ids=lambda p: p.name)
def test_one_paper_card_header(pkg):
    """The card's first line is ``[Pxx] <title>`` exactly as paper.toml gives it; authors and url live only there."""
    import tomllib

    meta = tomllib.loads((pkg / "paper.toml").read_text(encoding="utf-8"))
    doc = ast.get_docstring(ast.parse((pkg / "__init__.py").read_text(encoding="utf-8"))) or ""
    first = doc.splitlines()[0] if doc else ""
    assert first == f"[{meta['id']}] {meta['title']}", f"{pkg.name}: card header {first!r}"
    assert "http" not in doc and not re.search(r"^Authors?:", doc, re.M), f"{pkg.name}: url/authors belong in paper.toml"
