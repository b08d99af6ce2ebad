"""Bad input raises ValueError naming the argument."""

import numpy as np
import pytest

from icml26.papers.hankel import hankel_complete, make_spectral_signal

N = 31
X = np.exp(2j * np.pi * 0.1 * np.arange(N))
MASK = np.arange(N) % 2 == 0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"y": X[:-1]}, "mask"),  # length mismatch
        ({"mask": MASK[:-1]}, "mask"),
        ({"mask": MASK.astype(int)}, "mask must be a bool"),
        ({"mask": np.zeros(N, bool)}, "mask has no observed"),
        ({"rank": 0}, "rank"),
        ({"rank": N // 2 + 1}, "rank"),
        ({"rank": 2.0}, "rank"),
        ({"y": np.where(MASK, np.nan, X)}, "y has NaN"),
        ({"y": np.where(np.arange(N) == 4, np.inf, X)}, "y has NaN or inf"),
        ({"y": X.reshape(1, N)}, "y must be a 1-D"),
        ({"y": np.array(["a"] * N)}, "y must hold"),
        ({"method": "adam"}, "method"),
        ({"tol": 0.0}, "tol"),
        ({"tol": True}, "tol must be a real number"),
        ({"tol": np.bool_(True)}, "tol must be a real number"),
        ({"tol": "1e-8"}, "tol must be a real number"),
        ({"tol": 1e-8 + 0j}, "tol must be a real number"),
        ({"tol": np.float32("nan")}, "tol must be a finite"),
        ({"max_iter": 0}, "max_iter"),
        ({"eta": -1.0}, "eta"),
        ({"eta": True}, "eta must be a real number"),
        ({"eta": np.float64("inf")}, "eta must be a finite"),
        ({"y": np.zeros(N)}, "y is zero at every observed entry"),
        ({"y": np.where(MASK, 0.0, X)}, "y is zero at every observed entry"),
        ({"x_true": X[:5]}, "x_true"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(kwargs: dict, match: str) -> None:
    args = {"y": X, "mask": MASK, "rank": 1, "seed": 0} | kwargs
    y, mask = args.pop("y"), args.pop("mask")
    with pytest.raises(ValueError, match=match):
        hankel_complete(y, mask, **args)


@pytest.mark.parametrize("method", ["jpgd", "fiht"])
def test_numpy_scalars_are_accepted_for_tol_and_eta(method: str) -> None:
    ref = hankel_complete(X, MASK, rank=1, method=method, seed=0, tol=1e-8, eta=0.5)
    for tol, eta in [(np.float64(1e-8), np.float64(0.5)), (np.float32(1e-8), np.float32(0.5))]:
        res = hankel_complete(X, MASK, rank=1, method=method, seed=0, tol=tol, eta=eta)
        assert res.converged and res.iterations == ref.iterations
        np.testing.assert_array_equal(res.x, ref.x)


def test_symmetric_methods_need_odd_length_but_pgd_takes_even() -> None:
    x = np.exp(2j * np.pi * 0.1 * np.arange(30))
    mask = np.arange(30) % 3 != 0
    with pytest.raises(ValueError, match="y must have odd length"):
        hankel_complete(x, mask, rank=1, method="jpgd", seed=0)
    res = hankel_complete(x, mask, rank=1, method="scaledgd", seed=0)
    assert res.converged and np.abs(res.x - x).max() < 1e-8


@pytest.mark.parametrize(("kwargs", "match"), [({"n": 2}, "n must"), ({"rank": 0}, "rank"), ({"rank": 20}, "rank"),
                                               ({"kappa": 0.5}, "kappa"), ({"kappa": float("nan")}, "kappa")])
def test_make_spectral_signal_rejects_bad_arguments(kwargs: dict, match: str) -> None:
    args = {"n": 31, "rank": 2, "kappa": 10.0, "seed": 0} | kwargs
    with pytest.raises(ValueError, match=match):
        make_spectral_signal(args.pop("n"), args.pop("rank"), **args)


def test_seed_is_required_and_makes_the_result_reproducible() -> None:
    """No silent fresh entropy: ``seed`` must be given, and the same seed gives the same completion."""
    with pytest.raises(TypeError, match="seed"):
        hankel_complete(X, MASK, rank=1)  # type: ignore[call-arg]
    a, b = (hankel_complete(X, MASK, rank=1, seed=3, tol=1e-4) for _ in range(2))
    np.testing.assert_array_equal(a.x, b.x)
    with pytest.raises(ValueError, match="seed must be >= 0"):
        hankel_complete(X, MASK, rank=1, seed=-1)
    with pytest.raises(TypeError, match="seed must be an int"):
        hankel_complete(X, MASK, rank=1, seed=None)  # type: ignore[arg-type]
