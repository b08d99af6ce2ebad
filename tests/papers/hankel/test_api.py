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
        ({"max_iter": 0}, "max_iter"),
        ({"eta": -1.0}, "eta"),
        ({"x_true": X[:5]}, "x_true"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(kwargs: dict, match: str) -> None:
    args = {"y": X, "mask": MASK, "rank": 1} | kwargs
    y, mask = args.pop("y"), args.pop("mask")
    with pytest.raises(ValueError, match=match):
        hankel_complete(y, mask, **args)


def test_symmetric_methods_need_odd_length_but_pgd_takes_even() -> None:
    x = np.exp(2j * np.pi * 0.1 * np.arange(30))
    mask = np.arange(30) % 3 != 0
    with pytest.raises(ValueError, match="y must have odd length"):
        hankel_complete(x, mask, rank=1, method="jpgd")
    res = hankel_complete(x, mask, rank=1, method="scaledgd", seed=0)
    assert res.converged and np.abs(res.x - x).max() < 1e-8


@pytest.mark.parametrize(("kwargs", "match"), [({"n": 2}, "n must"), ({"rank": 0}, "rank"), ({"rank": 20}, "rank"),
                                               ({"kappa": 0.5}, "kappa"), ({"kappa": float("nan")}, "kappa")])
def test_make_spectral_signal_rejects_bad_arguments(kwargs: dict, match: str) -> None:
    args = {"n": 31, "rank": 2, "kappa": 10.0, "seed": 0} | kwargs
    with pytest.raises(ValueError, match=match):
        make_spectral_signal(args.pop("n"), args.pop("rank"), **args)
