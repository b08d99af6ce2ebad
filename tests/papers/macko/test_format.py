"""The MACKO format of [P05]: worked example, exact round trip, storage invariants, save/load and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.macko import MackoFormatError, MackoMatrix, macko_expected_bytes
from icml26.papers.macko._format import columns, unpack_deltas
from icml26.papers.macko._matrix import _FORMAT_TAG, _checksum


def sparse(rows: int, cols: int, density: float, seed: int) -> np.ndarray:
    g = np.random.default_rng(seed)
    w = g.standard_normal((rows, cols)).astype(np.float16)
    w[g.random((rows, cols)) >= density] = 0
    return w


def test_worked_example_row() -> None:
    # values 1, 2, 3 at columns 2, 36, 46: gaps 2, 33, 9; the 33 zeros need two padding entries (cols 18, 34)
    w = np.zeros((1, 50), np.float16)
    w[0, [2, 36, 46]] = [1, 2, 3]
    A = MackoMatrix.from_dense(w)
    n = A.n_stored
    assert n == 5 and A.nnz == 3
    assert A.values[:n].tolist() == [1, 0, 0, 2, 3]
    assert unpack_deltas(A.deltas)[:n].tolist() == [2, 15, 15, 1, 9]
    assert columns(A.deltas, A.row_ptr).tolist() == [2, 18, 34, 36, 46]
    assert A.row_ptr.tolist() == [0, 5]
    assert A.values.size == 16 and A.nbytes == 16 * 2 + 8 + 2 * 4


@pytest.mark.parametrize("gap", [14, 15, 16, 17, 31, 32, 33, 47, 48, 100])
def test_gaps_around_padding_thresholds(gap: int) -> None:
    w = np.zeros((2, gap + 3), np.float16)
    w[0, 0] = 1.5
    w[0, gap + 1] = -2.0
    w[1, gap] = 3.0  # a leading gap of `gap` zeros
    A = MackoMatrix.from_dense(w)
    assert np.array_equal(A.to_dense(), w)
    assert A.n_stored == 3 + gap // 16 + gap // 16  # floor(g/16) padding entries per gap


@pytest.mark.parametrize("shape", [(1, 1), (0, 5), (5, 0), (3, 7), (17, 129), (64, 1000)])
@pytest.mark.parametrize("density", [0.0, 0.05, 0.5, 1.0])
def test_round_trip_exact(shape: tuple[int, int], density: float) -> None:
    w = sparse(*shape, density, seed=1)
    A = MackoMatrix.from_dense(w)
    assert A.shape == shape
    assert np.array_equal(A.to_dense(), w)
    assert A.values.size % 16 == 0


@settings(max_examples=40, deadline=None)
@given(r=st.integers(1, 40), c=st.integers(1, 300), d=st.floats(0.0, 1.0), seed=st.integers(0, 2**31))
def test_round_trip_property(r: int, c: int, d: float, seed: int) -> None:
    w = sparse(r, c, d, seed)
    A = MackoMatrix.from_dense(w)
    assert np.array_equal(A.to_dense(), w)
    assert A.nnz == np.count_nonzero(w)
    # every gap of g zeros costs floor(g/16) padding entries: stored entries are bounded by nnz + R*C/16
    assert A.nnz <= A.n_stored <= A.nnz + r * c // 16 + r


def test_fp32_and_torch_inputs() -> None:
    torch = pytest.importorskip("torch")
    w = sparse(8, 40, 0.5, 2)
    a = MackoMatrix.from_dense(w.astype(np.float32))
    b = MackoMatrix.from_dense(torch.from_numpy(w.astype(np.float32)))
    assert np.array_equal(a.to_dense(), w) and np.array_equal(b.to_dense(), w)


def test_negative_zero_is_zero_and_nan_is_stored() -> None:
    w = np.array([[-0.0, 1.0, np.nan, 0.0, -np.inf]], np.float16)
    A = MackoMatrix.from_dense(w)
    assert A.nnz == 3
    d = A.to_dense()
    assert d[0, 0] == 0 and np.isnan(d[0, 2]) and d[0, 4] == -np.inf


def test_storage_matches_expectation_at_50_percent() -> None:
    r, c = 256, 4096
    A = MackoMatrix.from_dense(sparse(r, c, 0.5, 3))
    ratio = A.nbytes / (2 * r * c)
    assert ratio <= 0.63
    assert abs(A.nbytes / macko_expected_bytes(r, c, 0.5) - 1) < 0.01
    assert abs(A.density - 0.5) < 0.01


def test_save_load_round_trip(tmp_path) -> None:
    w = sparse(33, 257, 0.3, 4)
    A = MackoMatrix.from_dense(w)
    p = tmp_path / "m.npz"
    A.save(p)
    B = MackoMatrix.load(p)
    assert B.shape == A.shape and np.array_equal(B.to_dense(), w)


def test_truncated_file(tmp_path) -> None:
    p = tmp_path / "m.npz"
    MackoMatrix.from_dense(sparse(20, 100, 0.5, 5)).save(p)
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(MackoFormatError, match="cannot read"):
        MackoMatrix.load(p)


def _save_arrays(p, **over) -> None:
    """A file with some arrays replaced and a sha256 that matches them, so that the structural checks behind the
    checksum are what refuses the file."""
    A = MackoMatrix.from_dense(sparse(20, 100, 0.5, 6))
    arrays = {"format": np.array(_FORMAT_TAG), "shape": np.array(A.shape), "values": A.values,
              "deltas": A.deltas, "row_ptr": A.row_ptr}
    arrays.update(over)
    shape = tuple(int(n) for n in arrays["shape"][:2])
    arrays["checksum"] = np.array(_checksum(shape, arrays["values"], arrays["deltas"], arrays["row_ptr"]))
    np.savez(p, **arrays)


@pytest.mark.parametrize("over, match", [
    ({"format": np.array("other/9")}, "format tag"),
    ({"shape": np.array([20, 30])}, "past column"),            # deltas run past C
    ({"row_ptr": np.zeros(5, np.int32)}, "row_ptr"),
    ({"deltas": np.full(8, 0xFF, np.uint8)}, "deltas half"),
    ({"values": np.zeros(3, np.float16)}, "multiple of 16"),
])
def test_tampered_file(tmp_path, over, match) -> None:
    p = tmp_path / "m.npz"
    _save_arrays(p, **over)
    with pytest.raises(MackoFormatError, match=match):
        MackoMatrix.load(p)


def test_tampered_deltas_past_columns(tmp_path) -> None:
    p = tmp_path / "m.npz"
    A = MackoMatrix.from_dense(sparse(20, 100, 0.5, 7))
    _save_arrays(p, deltas=np.full_like(A.deltas, 0xFF))
    with pytest.raises(MackoFormatError, match="past column"):
        MackoMatrix.load(p)


def test_missing_keys(tmp_path) -> None:
    p = tmp_path / "m.npz"
    np.savez(p, values=np.zeros(16, np.float16))
    with pytest.raises(MackoFormatError, match="missing"):
        MackoMatrix.load(p)


def test_a_consistent_edit_of_row_ptr_is_refused(tmp_path) -> None:
    """Moving one row boundary keeps every structural invariant: only the checksum saved with the arrays tells."""
    w = sparse(20, 100, 0.5, 6)
    w[:, 50:] = 0  # room on the right: the moved entry stays inside the row
    A = MackoMatrix.from_dense(w)
    p = tmp_path / "m.npz"
    A.save(p)
    with np.load(p) as z:
        saved = {k: z[k] for k in z.files}
    rp = saved["row_ptr"].copy()
    rp[5] += 1  # row 4 gains the first entry of row 5: still a valid MACKO matrix, a different one
    assert not np.array_equal(MackoMatrix(A.values, A.deltas, rp, A.shape).to_dense(), w)
    for edit in ({"row_ptr": rp}, {"shape": np.array([20, 120])}):
        np.savez(p, **{**saved, **edit})
        with pytest.raises(MackoFormatError, match="checksum mismatch"):
            MackoMatrix.load(p)
    np.savez(p, **saved)
    assert np.array_equal(MackoMatrix.load(p).to_dense(), w)


def test_files_of_the_old_tag_and_foreign_files_are_format_errors(tmp_path) -> None:
    p = tmp_path / "m.npz"
    _save_arrays(p, format=np.array("macko-spmv/1"))
    with pytest.raises(MackoFormatError, match="unknown format tag"):
        MackoMatrix.load(p)
    npy = tmp_path / "a.npy"
    np.save(npy, np.zeros(3))
    with pytest.raises(MackoFormatError, match="not a MACKO file"):
        MackoMatrix.load(npy)
    txt = tmp_path / "t.txt"
    txt.write_text("not a matrix\n")
    with pytest.raises(MackoFormatError, match="cannot read"):
        MackoMatrix.load(txt)
    with pytest.raises(MackoFormatError, match="cannot read"):
        MackoMatrix.load(tmp_path / "missing.npz")


def test_bad_W() -> None:
    with pytest.raises(ValueError, match="W must be 2-D"):
        MackoMatrix.from_dense(np.zeros(5, np.float16))
    with pytest.raises(TypeError, match="W must be float16, float32 or float64"):
        MackoMatrix.from_dense(np.zeros((2, 2), np.int32))
    with pytest.raises(TypeError, match="W must be a numpy array"):
        MackoMatrix.from_dense([[1.0]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_beyond_fp16_are_refused_not_turned_into_inf(dtype) -> None:
    w = np.zeros((3, 40), dtype)
    w[2, 7] = 70000.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy overflow warning either
        with pytest.raises(ValueError, match=r"W: 1 finite value\(s\) exceed the fp16 range .*at \(2, 7\)"):
            MackoMatrix.from_dense(w)
        w[2, 7] = 65504.0  # the largest fp16 value, and values that round to it, are fine
        w[1, 3] = -65519.0
        A = MackoMatrix.from_dense(w)
    assert A.to_dense()[2, 7] == 65504 and A.to_dense()[1, 3] == -65504
    w[0, 0] = np.inf  # an inf given as such is an fp16 value and stored
    assert np.isinf(MackoMatrix.from_dense(w).to_dense()[0, 0])


def test_float64_and_scipy_sparse_inputs() -> None:
    sps = pytest.importorskip("scipy.sparse")
    w = sparse(1500, 70, 0.3, 8)  # more rows than one encoding block
    dense64 = MackoMatrix.from_dense(w.astype(np.float64))
    assert np.array_equal(dense64.to_dense(), w)
    for fmt in ("csr", "csc", "coo"):
        A = MackoMatrix.from_dense(sps.csr_array(w.astype(np.float32)).asformat(fmt))
        assert A.shape == w.shape and np.array_equal(A.to_dense(), w)
    dup = sps.coo_array((np.array([1.0, 2.0]), (np.array([0, 0]), np.array([1, 1]))), shape=(1, 3))
    assert MackoMatrix.from_dense(dup).to_dense().tolist() == [[0.0, 3.0, 0.0]]  # duplicates are summed
    big = sps.csr_array(np.array([[0.0, 1e6], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="exceed the fp16 range"):
        MackoMatrix.from_dense(big)
    with pytest.raises(TypeError, match="W must hold float16, float32 or float64"):
        MackoMatrix.from_dense(sps.csr_array(np.eye(3, dtype=np.int64)))
