"""The AVX-512 MACKO kernel [P05] reads x only inside its documented padding (X_FRONT / X_BACK floats).

The x window of a row (64 to 256 floats) may start before column 0 or run past the last column; those lanes are
masked, so a read beyond the padding would not change any result and no result-based test could see it. Here a
small C++ harness (``native/guard_pages.cpp``) runs the kernel with each x buffer flush against an inaccessible page,
once at its start and once at its end: a read outside the padding crashes. The matrices cover every window (rows at density 0.02-0.9), gathers, rows that
start at column 0 and rows that end at the last column, one vector and a batch of 3, 1 and 3 threads.
Needs a C++ compiler (CI has one: it builds the extension); skipped otherwise.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from icml26.papers.macko import MackoMatrix, native_available
from icml26.papers.macko._kernels import _isa_code

NATIVE = Path(__file__).parents[3] / "src" / "icml26" / "papers" / "macko" / "_native"
HARNESS = Path(__file__).with_name("native") / "guard_pages.cpp"
COLS = 1500
CXX = shutil.which("c++") or shutil.which("g++")

pytestmark = pytest.mark.skipif(CXX is None or not native_available(), reason="needs a C++ compiler and the extension")


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = tmp_path_factory.mktemp("guard") / "guard_pages"
    cmd = [CXX, "-O2", "-std=c++17", f"-I{NATIVE}", str(HARNESS), str(NATIVE / "macko_kernels.cpp"), "-o", str(exe),
           "-lpthread"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return exe


def matrix(seed: int, *, sparse_only: bool) -> np.ndarray:
    """Rows of mixed density; ``sparse_only``: 200 rows at density 0.01-0.08, where a row that starts late in a
    16-entry chunk after a row of padding entries puts the 256-float window furthest before column 0."""
    g = np.random.default_rng(seed)
    if sparse_only:
        dens = g.choice([0.01, 0.02, 0.03, 0.05, 0.08], size=200)
    else:
        dens = g.choice([0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7, 0.9], size=48)
    w = g.standard_normal((dens.size, COLS)).astype(np.float16)
    w[g.random(w.shape) >= dens[:, None]] = 0
    w[g.random(dens.size) < 0.4, -1] = 1.0  # rows ending at the last column
    w[g.random(dens.size) < 0.3, 0] = -1.0  # rows starting at column 0
    w[3, :-1] = 0  # a row whose only entry is the last column
    return w


@pytest.mark.parametrize("seed, sparse_only", [(0, False), (1, False), (2, False), (3, True), (4, True)])
def test_kernel_reads_x_only_inside_its_padding(harness: Path, tmp_path: Path, seed: int, sparse_only: bool) -> None:
    w = matrix(seed, sparse_only=sparse_only)
    A = MackoMatrix.from_dense(w)
    nb = 3
    X = np.random.default_rng(100 + seed).standard_normal((nb, COLS)).astype(np.float32)
    np.array([w.shape[0], COLS, A.values.size, nb], np.int64).tofile(tmp_path / "meta.i64")
    A.values.view(np.uint16).tofile(tmp_path / "values.u16")
    A.deltas.tofile(tmp_path / "deltas.u8")
    A.row_ptr.astype(np.int32).tofile(tmp_path / "row_ptr.i32")
    X.tofile(tmp_path / "x.f32")
    ref = np.stack([A.matvec(X[b], kernel="reference") for b in range(nb)])
    scale = np.abs(X.astype(np.float64)) @ np.abs(w.astype(np.float64)).T
    for isa in range(_isa_code(None) + 1):
        for threads in (1, 3):
            out = subprocess.run([str(harness), str(tmp_path), str(isa), str(threads)], capture_output=True,
                                 text=True, timeout=120, check=False)
            assert out.returncode == 0, f"isa {isa}, {threads} threads: exit {out.returncode} (a crash is an x read "\
                                        f"outside the padding) {out.stderr[-2000:]}"
            y = np.fromfile(tmp_path / "y.f32", np.float32).reshape(4, nb, w.shape[0])
            for got in y:  # guard in front: one vector at a time, the batch; guard behind: the same
                assert np.all(np.abs(got - ref) <= 1e-5 * scale * COLS**0.5 + 1e-30)
