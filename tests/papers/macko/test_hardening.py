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


def test_reference_spmv_refuses_bad_shapes_clearly() -> None:
    from icml26.papers.macko import reference_spmv

    A = _matrix()
    X = np.ones((2, A.shape[1]), np.float32)
    np.testing.assert_allclose(reference_spmv(A.values, A.deltas, A.row_ptr, A.shape, X)[1],
                               A.matvec(X[1], kernel="reference"))
    with pytest.raises(ValueError, match=r"X must have shape \(\*, 50\)"):
        reference_spmv(A.values, A.deltas, A.row_ptr, A.shape, np.ones((2, 49), np.float32))
    with pytest.raises(ValueError, match="X must be 2-dimensional"):
        reference_spmv(A.values, A.deltas, A.row_ptr, A.shape, np.ones(50, np.float32))
    with pytest.raises(MackoFormatError, match="row_ptr must be a 1-D int32 array of length R \\+ 1 = 8"):
        reference_spmv(A.values, A.deltas, A.row_ptr, (7, 50), X)  # one row too many for row_ptr
    with pytest.raises(MackoFormatError, match="past column"):
        reference_spmv(A.values, A.deltas, A.row_ptr, (6, 10), X[:, :10])
    with pytest.raises(MackoFormatError, match="shape must be a pair"):
        reference_spmv(A.values, A.deltas, A.row_ptr, (6,), X)  # type: ignore[arg-type]
    with pytest.raises(MackoFormatError, match="values must be a 1-D float16"):
        reference_spmv(A.values.astype(np.float32), A.deltas, A.row_ptr, A.shape, X)


def test_isa_is_checked_with_or_without_the_native_kernels() -> None:
    A = _matrix()
    x = np.ones(A.shape[1], np.float32)
    for kernel in ("native", "reference"):
        with pytest.raises(ValueError, match="isa must be one of"):
            A.matvec(x, kernel=kernel, isa="sse2")
        with pytest.raises(TypeError, match="isa must be one of"):
            A.matvec(x, kernel=kernel, isa=3)  # type: ignore[arg-type]


def test_storage_helpers_and_wanda_reject_bad_input() -> None:
    from icml26.papers.macko import break_even_density, csr_bytes, dense_fp16_bytes, macko_expected_bytes, wanda_prune

    with pytest.raises(ValueError, match="rows must be an int >= 0"):
        dense_fp16_bytes(-3, 4)
    with pytest.raises(TypeError, match="rows"):
        dense_fp16_bytes(2.5, 4)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="nnz"):
        csr_bytes(3, 4, 13)
    with pytest.raises(TypeError, match="density"):
        macko_expected_bytes(3, 4, True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="densities must be finite"):
        break_even_density(np.array([0.1, np.nan, 0.9]), np.array([0.2, 0.5, 1.2]))
    with pytest.raises(ValueError, match="ratios must be finite"):
        break_even_density(np.array([0.1, 0.5, 0.9]), np.array([0.2, np.nan, 1.2]))
    with pytest.raises(TypeError, match="densities must hold real numbers"):
        break_even_density(np.array(["0.1", "0.9"]), np.array([0.2, 1.2]))
    with pytest.raises(ValueError, match="increasing"):
        break_even_density(np.array([0.9, 0.5, 0.1]), np.array([1.2, 0.7, 0.2]))
    assert break_even_density(np.array([0.5, 0.9]), np.array([0.5, 1.5])) == pytest.approx(0.7)
    X = np.ones((4, 3))
    X[1, 2] = np.nan
    with pytest.raises(ValueError, match="activations must be finite"):
        wanda_prune(np.ones((2, 3)), X, sparsity=0.5)
    with pytest.raises(ValueError, match="weight must be finite"):
        wanda_prune(np.array([[1.0, np.nan]]), None, sparsity=0.5)
    with pytest.raises(TypeError, match="weight must be a floating"):
        wanda_prune(np.ones((2, 3), np.int64), None, sparsity=0.5)


def test_torch_layers_refuse_weights_beyond_fp16() -> None:
    torch = pytest.importorskip("torch")
    from icml26.papers.macko._torch import DenseFp16Linear, MackoLinear

    w = torch.ones(4, 8)
    w[1, 2] = 1e5
    for cls in (MackoLinear, DenseFp16Linear):
        with pytest.raises(ValueError, match="exceed the fp16 range"):
            cls(w)
    with pytest.raises(TypeError, match="threads"):
        MackoLinear(torch.ones(4, 8), threads=True)  # type: ignore[arg-type]


def test_gpu_timers_validate_their_arguments() -> None:
    from icml26.papers.macko._timing import cuda_graph_time, device_time

    for timer in (cuda_graph_time, device_time):
        with pytest.raises(ValueError, match="calls >= 1"):
            timer([lambda: None], calls=0, torch=None)
