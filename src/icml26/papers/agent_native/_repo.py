"""MiniRepo: small Python repositories generated from function templates, with one injected bug ([P17] toy world).

The paper mid-trains on real GitHub pull requests and executable Docker repositories; this module is our stand-in
(reconstructed, not the paper's data): a repository is ``n_modules`` modules of ``n_funcs`` functions each, every
function a chain of one or two primitive steps whose docstring states what it does, plus a ``unittest`` test file.
A *template* is the chain of primitive kinds (``("add", "mul")``); the constants vary per instance. One function gets
a bug (an operator swap or an off-by-one constant on one line); the issue text is the failing test's report.

Source is written token-spaced (``y = max ( y , 3 )``), which is valid Python and makes text <-> tokens exact.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from icml26.common import validation as V

__all__ = ["KINDS", "NAMES", "TEST_FILE", "Bug", "Repo", "Task", "heldout_templates", "make_task", "templates"]

#: primitive kind -> (docstring phrase, code operator format with {v} the variable and {k} the constant)
KINDS: dict[str, tuple[str, str]] = {
    "add": ("add", "{v} + {k}"),
    "sub": ("subtract", "{v} - {k}"),
    "mul": ("times", "{v} * {k}"),
    "max": ("at least", "max ( {v} , {k} )"),
    "min": ("at most", "min ( {v} , {k} )"),
    "mod": ("mod", "{v} % {k}"),
}
#: operator swaps a bug may make (kind -> kinds it may become)
SWAPS: dict[str, tuple[str, ...]] = {
    "add": ("sub", "mul"), "sub": ("add",), "mul": ("add",), "max": ("min",), "min": ("max",), "mod": ("mul",),
}
NAMES = ("alpha", "bravo", "delta", "echo", "golf", "hotel", "india", "kilo", "lima", "mike", "oscar", "papa",
         "romeo", "sierra", "tango", "victor", "whisky", "yankee", "zulu", "amber", "coral", "ember", "flint", "gamma")
TEST_FILE = "test_repo.py"
HELDOUT_FRACTION = 0.25
_SPLIT_SEED = 2601  # the held-out template split is fixed for every run (not a run seed)


def templates() -> list[tuple[str, ...]]:
    """Every template ([P17] toy world): single kinds and ordered pairs of kinds (6 + 36)."""
    ks = list(KINDS)
    return [(k,) for k in ks] + [p for p in itertools.product(ks, ks)]


def heldout_templates() -> frozenset[tuple[str, ...]]:
    """The templates never seen in training ([P17] held-out templates): a fixed quarter of the pairs (every single
    kind stays in training)."""
    pairs = [t for t in templates() if len(t) == 2]
    g = np.random.default_rng(_SPLIT_SEED)
    idx = g.choice(len(pairs), round(HELDOUT_FRACTION * len(pairs)), replace=False)
    return frozenset(pairs[i] for i in sorted(idx))


def _apply(kind: str, v: int, k: int) -> int:
    if kind == "add":
        return v + k
    if kind == "sub":
        return v - k
    if kind == "mul":
        return v * k
    if kind == "max":
        return max(v, k)
    if kind == "min":
        return min(v, k)
    return v % k


@dataclass(frozen=True)
class Function:
    """One generated function: its name, the steps ``((kind, k), ...)`` it performs and the inputs its test uses."""

    name: str
    steps: tuple[tuple[str, int], ...]
    inputs: tuple[int, ...]

    @property
    def template(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.steps)

    def __call__(self, x: int) -> int:
        for kind, k in self.steps:
            x = _apply(kind, x, k)
        return x

    def doc(self) -> str:
        return " , then ".join(f"{KINDS[kd][0]} {k}" for kd, k in self.steps) + " ."

    def body(self) -> list[str]:
        """The step lines (indented one level), then the return."""
        lines = [f"    y = {KINDS[kd][1].format(v='x' if i == 0 else 'y', k=k)}" for i, (kd, k) in enumerate(self.steps)]
        return lines + ["    return y"]

    def source(self) -> list[str]:
        return [f"def {self.name} ( x ) :", f'    """ {self.doc()} """', *self.body()]


@dataclass(frozen=True)
class Bug:
    """The injected bug ([P17] toy world): function ``func`` in ``file``, 1-based ``line`` holds ``buggy`` instead of ``fixed``."""

    file: str
    func: str
    line: int
    fixed: str
    buggy: str
    kind: str  # "swap" | "constant"


@dataclass(frozen=True)
class Repo:
    """A repository snapshot ([P17] toy world): file name -> source text (modules and the test file)."""

    files: Mapping[str, str]

    def lines(self, file: str) -> list[str]:
        return self.files[file].split("\n")

    def with_line(self, file: str, line: int, text: str) -> Repo:
        """A copy with 1-based ``line`` of ``file`` replaced by ``text``."""
        ls = self.lines(file)
        ls[line - 1] = text
        return Repo({**self.files, file: "\n".join(ls)})

    def modules(self) -> list[str]:
        return sorted(f for f in self.files if f != TEST_FILE)


@dataclass(frozen=True)
class Task:
    """One issue ([P17] toy world): the clean repository, the buggy one, the bug, the issue text and the buggy function's template."""

    clean: Repo
    buggy: Repo
    bug: Bug
    issue: str
    template: tuple[str, ...]
    functions: tuple[Function, ...]


def _function(name: str, template: tuple[str, ...], g: np.random.Generator) -> Function:
    steps = tuple((kd, int(g.integers(2, 10))) for kd in template)
    inputs = tuple(int(v) for v in g.choice(10, 3, replace=False))
    return Function(name, steps, inputs)


def _module_text(funcs: list[Function]) -> str:
    out: list[str] = []
    for f in funcs:
        out += [*f.source(), ""]
    return "\n".join(out)


def _tests_text(layout: dict[str, list[Function]]) -> str:
    lines = ["import unittest"]
    for file, funcs in layout.items():
        lines.append(f"from {file[:-3]} import " + " , ".join(f.name for f in funcs))
    lines += ["", "", "class TestRepo ( unittest.TestCase ) :"]
    for funcs in layout.values():
        for f in funcs:
            lines.append(f"    def test_{f.name} ( self ) :")
            lines += [f"        self.assertEqual ( {f.name} ( {x} ) , {f(x)} )" for x in f.inputs]
    return "\n".join(lines) + "\n"


def _mutations(f: Function) -> list[tuple[int, tuple[tuple[str, int], ...], str]]:
    """Every single-line bug of ``f``: (step index, buggy steps, bug kind)."""
    out = []
    for i, (kd, k) in enumerate(f.steps):
        for alt in SWAPS[kd]:
            out.append((i, f.steps[:i] + ((alt, k),) + f.steps[i + 1:], "swap"))
        for k2 in (k - 1, k + 1):
            if 2 <= k2 <= 9:
                out.append((i, f.steps[:i] + ((kd, k2),) + f.steps[i + 1:], "constant"))
    return out


def make_task(*, seed: int, n_modules: int = 2, n_funcs: int = 2, heldout: bool = False) -> Task:
    """A random repository with one visible bug ([P17] toy world; reconstructed, see the module docstring).

    ``heldout`` picks the buggy function's template from :func:`heldout_templates` (an unseen template); otherwise
    every function's template comes from the training templates. The bug is chosen among the single-line mutations
    of the buggy function that make at least one of its test inputs return a wrong value, so the test really fails.
    """
    seed = V.seed(seed)
    n_modules = V.positive_int(n_modules, "n_modules", hi=4)
    n_funcs = V.positive_int(n_funcs, "n_funcs", hi=4)
    if not isinstance(heldout, bool):
        raise TypeError(f"heldout must be a bool, got {type(heldout).__name__}")
    if n_modules * n_funcs > len(NAMES):
        raise ValueError(f"n_modules * n_funcs must be <= {len(NAMES)}")
    g = np.random.default_rng([seed, 17])
    held = heldout_templates()
    train_t = [t for t in templates() if t not in held]
    held_t = sorted(held)
    names = [NAMES[i] for i in g.choice(len(NAMES), n_modules * n_funcs, replace=False)]
    while True:
        funcs = [_function(nm, train_t[int(g.integers(len(train_t)))], g) for nm in names]
        target = int(g.integers(len(funcs)))
        if heldout:
            funcs[target] = _function(names[target], held_t[int(g.integers(len(held_t)))], g)
        f = funcs[target]
        muts = [m for m in _mutations(f) if any(Function(f.name, m[1], f.inputs)(x) != f(x) for x in f.inputs)]
        if muts:
            break
    layout = {f"m{i}.py": funcs[i * n_funcs:(i + 1) * n_funcs] for i in range(n_modules)}
    files = {file: _module_text(fs) for file, fs in layout.items()}
    files[TEST_FILE] = _tests_text(layout)
    clean = Repo(files)
    step, bsteps, bkind = muts[int(g.integers(len(muts)))]
    bad = Function(f.name, bsteps, f.inputs)
    file = f"m{target // n_funcs}.py"
    line = clean.lines(file).index(f"def {f.name} ( x ) :") + 3 + step
    buggy = clean.with_line(file, line, bad.body()[step])
    x = next(x for x in f.inputs if bad(x) != f(x))
    issue = f"test_{f.name} fails : {f.name} ( {x} ) returned {bad(x)} , expected {f(x)}"
    bug = Bug(file=file, func=f.name, line=line, fixed=f.body()[step].strip(), buggy=bad.body()[step].strip(),
              kind=bkind)
    return Task(clean=clean, buggy=buggy, bug=bug, issue=issue, template=f.template, functions=tuple(funcs))
