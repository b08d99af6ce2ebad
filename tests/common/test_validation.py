"""The shared argument checks."""

from __future__ import annotations

import numpy as np
import pytest

from icml26.common.validation import int_at_least


def test_ints_pass_and_come_back_as_python_ints() -> None:
    assert int_at_least(3, "n", 1) == 3
    v = int_at_least(np.int64(0), "n", 0)
    assert v == 0 and type(v) is int


@pytest.mark.parametrize("bad, exc, match", [(True, TypeError, "n must be an int, got bool"),
                                             (np.bool_(True), TypeError, "n must be an int"),
                                             (2.0, TypeError, "n must be an int, got float"),
                                             ("3", TypeError, "n must be an int"),
                                             (0, ValueError, r"n must be an int >= 1, got 0")])
def test_bad_values_name_the_argument(bad, exc, match) -> None:
    with pytest.raises(exc, match=match):
        int_at_least(bad, "n", 1)


from icml26.common.validation import (  # noqa: E402
    choice,
    complex_array,
    positive_int,
    probability_vector,
    real,
    real_array,
    seed,
)


def test_seed_and_positive_int():
    assert seed(0) == 0 and positive_int(np.int32(4), "k") == 4
    for bad, err in ((None, TypeError), (-1, ValueError), (True, TypeError), (1.0, TypeError)):
        with pytest.raises(err, match="^seed"):
            seed(bad)
    with pytest.raises(ValueError, match=r"k must be an int in \[1, 3\]"):
        positive_int(4, "k", hi=3)


def test_real():
    assert real(1, "x") == 1.0 and real(0.5, "p", lo=0, hi=1) == 0.5
    for bad, err in ((True, TypeError), (1j, TypeError), ("1", TypeError), (float("nan"), ValueError),
                     (float("inf"), ValueError)):
        with pytest.raises(err, match="^x"):
            real(bad, "x")
    with pytest.raises(ValueError, match=r"tau must be in \[0, 1\], got 1.5"):
        real(1.5, "tau", lo=0, hi=1)
    with pytest.raises(ValueError, match=r"eta must be in \(0, inf\)"):
        real(0.0, "eta", lo=0, lo_open=True)
    assert real(float("inf"), "t", finite=False) == float("inf")


def test_arrays():
    a = real_array([[1, 2], [3, 4]], "X", ndim=2, shape=(None, 2))
    assert a.dtype == np.float64 and a.shape == (2, 2)
    cases = [
        (dict(x=[1.0, np.nan]), ValueError, "X must be finite"),
        (dict(x=[1.0, np.inf]), ValueError, "X must be finite"),
        (dict(x=[[1.0]], ndim=1), ValueError, "X must be 1-dimensional"),
        (dict(x=[]), ValueError, "X must not be empty"),
        (dict(x=[1 + 2j]), TypeError, "X must hold real numbers"),
        (dict(x=["a"]), TypeError, "X must hold"),
        (dict(x="abc"), TypeError, "X must be an array"),
        (dict(x=[[1, 2], [3]]), ValueError, "X must be a rectangular"),
        (dict(x=[[1, 2, 3]], shape=(None, 2)), ValueError, r"X must have shape \(\*, 2\)"),
    ]
    for kw, err, match in cases:
        x = kw.pop("x")
        with pytest.raises(err, match=match):
            real_array(x, "X", **kw)
    z = complex_array([1.0, 2j], "z", ndim=1)
    assert z.dtype == np.complex128 and z[1] == 2j
    with pytest.raises(ValueError, match="z must be finite"):
        complex_array([complex(np.nan, 0)], "z")


def test_probability_vector_and_choice():
    assert probability_vector([0.25, 0.75], "p").sum() == 1.0
    for bad, match in (([0.5, 0.6], "sum to 1"), ([-0.1, 1.1], "non-negative"), ([], "empty"), ([[1.0]], "1-dim")):
        with pytest.raises(ValueError, match=match):
            probability_vector(bad, "p")
    assert choice("a", "mode", ["a", "b"]) == "a"
    with pytest.raises(ValueError, match=r"mode must be one of \['a', 'b'\]"):
        choice("c", "mode", ["a", "b"])
    with pytest.raises(TypeError):
        choice(1, "mode", ["a"])
