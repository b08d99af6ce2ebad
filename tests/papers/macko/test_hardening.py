"""Hardening of the MACKO package [P05]: the native kernels bound-check row_ptr, the public constructor always
validates, the extension is really built in CI, save/load use the same path, and bools are not thread counts."""

from __future__ import annotations

import os

import numpy as np
import pytest

from icml26.papers.macko import MackoMatrix, native_available
from icml26.papers.macko._kernels import ISA_NAMES, _isa_code, _native, native_spmv
from icml26.papers.macko._matrix import MackoFormatError

NATIVE_ISAS = [ISA_NAMES[i] for i in range(_isa_code(None) + 1)] if native_available() else []


def _matrix() -> MackoMatrix:
    g = np.random.default_rng(3)
    w = np.where(g.random((6, 50)) < 0.4, g.standard_normal((6, 50)), 0).astype(np.float16)
    return MackoMatrix.from_dense(w)


def test_native_extension_is_built() -> None:
    """CI must not silently run the numpy fallback: the extension loads unless ICML26_NO_EXT=1 disables it."""
    if os.environ.get("ICML26_NO_EXT") == "1":
        assert not native_available()
    else:
        assert native_available(), "the _macko_native extension failed to import (build it or set ICML26_NO_EXT=1)"
        assert _native() is not None


def _tampered_row_ptrs(rp: np.ndarray) -> list[np.ndarray]:
    neg = rp.copy()
    neg[2] = -5  # [0, x, -5, ...]: a negative start in the middle
    down = rp.copy()
    down[3] = down[4] + 1  # one row ends before it starts
    huge = rp.copy()
    huge[-1] = np.iinfo(np.int32).max  # last offset far past values
    first = rp.copy()
    first[0] = -1
    return [neg, down, huge, first]


@pytest.mark.parametrize("isa", NATIVE_ISAS)
@pytest.mark.parametrize("which", range(4))
def test_native_kernel_rejects_tampered_row_ptr(isa: str, which: int) -> None:
    """Calling the C++ kernel directly with a corrupt row_ptr is a ValueError on every ISA, not an OOB read."""
    A = _matrix()
    rp = _tampered_row_ptrs(A.row_ptr)[which]
    X = np.ones((1, A.shape[1]), np.float32)
    with pytest.raises(ValueError, match="row_ptr"):
        native_spmv(A.values, A.deltas, rp, A.shape, X, isa=isa)
    # the untampered arrays still work on that ISA
    np.testing.assert_allclose(native_spmv(A.values, A.deltas, A.row_ptr, A.shape, X, isa=isa)[0],
                               A.matvec(X[0], kernel="reference"), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("which", range(4))
def test_constructor_always_validates(which: int) -> None:
    A = _matrix()
    rp = _tampered_row_ptrs(A.row_ptr)[which]
    with pytest.raises(MackoFormatError, match="row_ptr"):
        MackoMatrix(A.values, A.deltas, rp, A.shape)
    with pytest.raises(TypeError, match="validate"):
        MackoMatrix(A.values, A.deltas, rp, A.shape, validate=False)  # type: ignore[call-arg]


def test_constructor_accepts_valid_arrays() -> None:
    A = _matrix()
    B = MackoMatrix(A.values, A.deltas, A.row_ptr, A.shape)
    np.testing.assert_array_equal(B.to_dense(), A.to_dense())
    assert B.nnz == A.nnz


@pytest.mark.parametrize("name", ["m", "m.npz", "m.macko"])
def test_load_reads_the_path_save_was_given(tmp_path, name: str) -> None:
    A = _matrix()
    p = tmp_path / name
    A.save(p)
    assert sorted(f.name for f in tmp_path.iterdir()) == [name]  # exactly that path, no suffix added
    B = MackoMatrix.load(p)
    np.testing.assert_array_equal(B.to_dense(), A.to_dense())
    B2 = MackoMatrix.load(str(p))
    assert B2.shape == A.shape


@pytest.mark.parametrize("threads", [True, False, 1.0, "2"])
def test_threads_must_be_an_int_not_a_bool(threads: object) -> None:
    A = _matrix()
    with pytest.raises(ValueError, match="threads"):
        A.matvec(np.ones(A.shape[1], np.float32), threads=threads)  # type: ignore[arg-type]
