"""Where the [P37] law puts the loss-optimal density: against brute-force searches over the law itself."""

import numpy as np
import pytest

from icml26.papers.sparse_scaling import PAPER_PARAMS, iso_flop_optimum, loss_optimal_density, sparse_law

S = np.linspace(0.01, 1.0, 9901)


def test_fixed_data_optimum_is_the_limit_of_large_models_and_many_epochs() -> None:
    o = loss_optimal_density(1.3e9)
    brute = sparse_law(1e30, S, 1.3e9, 1e30)  # both free: their limit
    assert o.density == pytest.approx(S[np.argmin(brute)], abs=2e-4)
    assert o.loss == pytest.approx(brute.min(), abs=1e-9) and o.dense_loss == pytest.approx(brute[-1], abs=1e-9)
    assert 0.44 < o.sparsity < 0.45


def test_fixed_data_optimum_does_not_depend_on_U() -> None:
    # N*(U) ∝ U^{β/α}, so both terms of the data-limited floor scale as U^{-β}: the optimum is scale-free
    for params in (PAPER_PARAMS, PAPER_PARAMS.replace(beta=0.36)):
        d = [loss_optimal_density(U, params=params).density for U in (1e8, 1.3e9, 1.3e11, 1e13)]
        assert max(d) - min(d) < 1e-5
    assert abs(loss_optimal_density(1e9, params=PAPER_PARAMS.replace(beta=0.36)).density
               - loss_optimal_density(1e9).density) > 1e-3


def test_the_notes_fixed_size_slice() -> None:
    o = loss_optimal_density(2.6e9, N_raw=5.2e8, D=16 * 2.6e9)
    brute = sparse_law(5.2e8, S, 2.6e9, 16 * 2.6e9)
    assert o.density == pytest.approx(S[np.argmin(brute)], abs=2e-4)
    assert 0.24 < o.sparsity < 0.27 and o.dense_loss == pytest.approx(2.8377, abs=1e-4)


def test_iso_flop_optimum_against_a_grid_over_size_and_density() -> None:
    U, C = 1.3e9, 1e20
    o = iso_flop_optimum(U, C, n_grid=20)
    N = np.geomspace(1e6, C / 6 / 1e6, 4000)  # active sizes; D = C / 6N
    best = (np.inf, None)
    for s in np.linspace(0.05, 1.0, 96):
        D = C / (6 * N)
        loss = sparse_law(N / s, s, np.minimum(U, D), D).min()
        best = min(best, (loss, s), key=lambda t: t[0])
    assert o.loss == pytest.approx(best[0], abs=2e-4)
    assert o.density == pytest.approx(best[1], abs=0.03)


def test_refusals() -> None:
    with pytest.raises(ValueError, match="U"):
        loss_optimal_density(-1.0)
    with pytest.raises(TypeError, match="params"):
        loss_optimal_density(1e9, params=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="C"):
        iso_flop_optimum(1e9, 1.0)
