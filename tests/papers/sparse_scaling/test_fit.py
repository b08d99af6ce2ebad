"""Fitting the [P37] law: Huber against torch's, planted constants recovered, the repetition gradient checked."""

import itertools

import numpy as np
import pytest
import torch
from scipy.optimize import approx_fprime

from icml26.papers.sparse_scaling import PAPER_PARAMS, effective_data, fit_law, fit_repetition, huber, sparse_law
from icml26.papers.sparse_scaling._repetition import RepetitionProblem


def test_huber_is_torchs() -> None:
    r = np.array([-0.02, -1e-3, -2e-4, 0.0, 5e-4, 1e-3, 0.3])
    want = torch.nn.functional.huber_loss(torch.tensor(r), torch.zeros(7), delta=1e-3, reduction="none").numpy()
    np.testing.assert_allclose(huber(r, delta=1e-3), want, rtol=1e-12, atol=0)


def _runs(params, grid):
    rows = list(itertools.product(*grid))
    N, s, U, ep = (np.array(c, dtype=float) for c in zip(*rows))
    D = U * ep
    return {"N_raw": N, "s": s, "U": U, "D": D, "loss": sparse_law(N, s, U, D, params=params)}


GRID = ((5e7, 2e8, 8e8, 3e9), (1.0, 0.5, 0.25), (1e9, 4e9), (1.0, 4.0, 16.0))


def test_fit_law_recovers_planted_scale_constants() -> None:
    truth = PAPER_PARAMS.replace(a=5.6, b=6.4, e=0.9, alpha=0.31, beta=0.31)
    runs = _runs(truth, GRID)
    fit = fit_law(runs, free=["a", "b", "e", "alpha"], grid={"a": [5.0, 6.0], "alpha": [0.25, 0.4]})
    assert fit.n_starts == 4 and fit.free == ("a", "b", "e", "alpha")
    for name in ("a", "b", "e", "alpha"):
        assert getattr(fit.params, name) == pytest.approx(getattr(truth, name), rel=1e-4), name
    assert fit.params.beta == fit.params.alpha and fit.r2 > 0.999999 and fit.objective < 1e-10


def test_fit_law_recovers_planted_repetition_constants() -> None:
    truth = PAPER_PARAMS.replace(r_d=6.0, lambda_d=1.0, sigma_d=-0.8)
    runs = _runs(truth, GRID)
    fit = fit_law(runs, free=["r_d", "lambda_d", "sigma_d"], grid={"r_d": [2.0, 10.0]})
    for name, want in (("r_d", 6.0), ("lambda_d", 1.0), ("sigma_d", -0.8)):
        assert getattr(fit.params, name) == pytest.approx(want, rel=1e-3), name
    untouched = {k: v for k, v in fit.params.to_dict().items() if k not in ("r_d", "lambda_d", "sigma_d")}
    assert untouched == {k: v for k, v in PAPER_PARAMS.to_dict().items() if k in untouched}


def test_fit_law_refuses_what_it_cannot_fit() -> None:
    runs = _runs(PAPER_PARAMS, ((1e8,), (1.0,), (1e9,), (1.0, 2.0)))
    with pytest.raises(ValueError, match="beta"):
        fit_law(runs, free=["beta"])
    with pytest.raises(ValueError, match="free"):
        fit_law(runs, free=["a", "a"])
    with pytest.raises(ValueError, match="grid"):
        fit_law(runs, free=["a"], grid={"b": [1.0]})
    with pytest.raises(ValueError, match="max_starts"):
        fit_law(runs, free=["a", "b"], grid={"a": [1.0, 2.0], "b": [1.0, 2.0]}, max_starts=3)
    with pytest.raises(ValueError, match="loss"):
        fit_law({k: v for k, v in runs.items() if k != "loss"}, free=["a"])
    with pytest.raises(ValueError, match="density"):
        fit_law({**runs, "s": runs["s"] * 2}, free=["a"])
    with pytest.raises(TypeError, match="runs"):
        fit_law([1, 2, 3], free=["a"])  # type: ignore[arg-type]


TRUE = {1.0: (1.90, 40.0, 3.0), 0.5: (1.95, 45.0, 7.0)}  # K, B, R* per density; β = 0.5


def _repetition_runs(noise: float = 0.0, seed: int = 0):
    g = np.random.default_rng(seed)
    U0, rows = 1e4, {"s": [], "U": [], "D": [], "loss": []}
    for s, (K, B, R) in TRUE.items():
        for e in (1, 2, 4, 8, 16):
            for U in (U0 * e, U0):  # fresh, then repeated
                D = U0 * e
                loss = K + B / effective_data(U, D, R) ** 0.5
                rows["s"].append(s)
                rows["U"].append(U)
                rows["D"].append(D)
                rows["loss"].append(loss * (1 + noise * g.standard_normal()))
    return rows


def test_fit_repetition_recovers_planted_half_lives() -> None:
    fit = fit_repetition(_repetition_runs())
    assert fit.densities == (1.0, 0.5) and fit.n_starts == 9
    for s, (K, B, R) in TRUE.items():
        assert fit.R_D_star[s] == pytest.approx(R, rel=1e-3) and fit.K[s] == pytest.approx(K, rel=1e-4)
        assert fit.B[s] == pytest.approx(B, rel=1e-3) and not fit.at_bound[s]
    assert fit.beta == pytest.approx(0.5, rel=1e-3)


def test_fit_repetition_with_noise_keeps_the_order_and_flags_no_saturation() -> None:
    fit = fit_repetition(_repetition_runs(noise=2e-4, seed=3))
    assert fit.R_D_star[0.5] > fit.R_D_star[1.0] * 1.5
    flat = _repetition_runs()
    fresh = {(s, d): v for s, u, d, v in zip(flat["s"], flat["U"], flat["D"], flat["loss"]) if u == d}
    flat["loss"] = [fresh[s, d] for s, d in zip(flat["s"], flat["D"])]  # repeated = fresh: no saturation at all
    unsat = fit_repetition(flat)
    assert all(unsat.at_bound.values())


def test_repetition_gradient_is_exact() -> None:
    runs = _repetition_runs(noise=1e-3, seed=1)
    s, U, D = (np.array(runs[k]) for k in ("s", "U", "D"))
    prob = RepetitionProblem(np.where(s == 1.0, 0, 1), U, D, np.log(runs["loss"]), 2, 1e-2)
    g = np.random.default_rng(0)
    for _ in range(5):
        x = np.concatenate([np.log([1.8, 1.9]), np.log([30.0, 50.0]), [np.log(0.45)], np.log([2.0, 5.0])])
        x += 0.05 * g.standard_normal(x.size)
        np.testing.assert_allclose(prob.gradient(x), approx_fprime(x, prob.objective, 1e-7), rtol=1e-4, atol=1e-8)


def test_fit_repetition_needs_fresh_and_repeated_runs() -> None:
    runs = _repetition_runs()
    only_fresh = {k: [v for v, u, d in zip(runs[k], runs["U"], runs["D"]) if u == d] for k in runs}
    with pytest.raises(ValueError, match="fresh"):
        fit_repetition(only_fresh)
    with pytest.raises(ValueError, match="half_lives"):
        fit_repetition(runs, half_lives=[1e6])


def test_effective_data_saturates_at_one_plus_half_life() -> None:
    assert effective_data(1e3, 1e3, 4.0) == 1e3
    assert effective_data(1e3, 1e9, 4.0) == pytest.approx(5e3)
    assert effective_data(1e3, 2e3, 4.0) == pytest.approx(1e3 * (1 + 4 * (1 - np.exp(-0.25))))
