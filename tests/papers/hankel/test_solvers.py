"""The objective's gradient (finite differences), exact recovery, and invariants of the iterations."""

import numpy as np
import pytest

from icml26.papers.hankel import METHODS, hankel_complete, make_spectral_signal
from icml26.papers.hankel._ops import HankelOps
from icml26.papers.hankel._symmetric import symmetric_gradient, symmetric_objective


def _instance(n=63, r=3, kappa=10.0, ratio=0.5, seed=0, damped=False):
    g = np.random.default_rng(seed)
    x, _, _ = make_spectral_signal(n, r, kappa=kappa, damped=damped, seed=g)
    mask = np.zeros(n, bool)
    mask[g.choice(n, round(ratio * n), replace=False)] = True
    return x, mask


def test_gradient_matches_finite_differences() -> None:
    g = np.random.default_rng(1)
    x, mask = _instance(n=31, r=2)
    ops, p = HankelOps(31), mask.mean()
    y0 = np.where(mask, x, 0)
    Z = g.standard_normal((ops.n1, 2)) + 1j * g.standard_normal((ops.n1, 2))
    grad = symmetric_gradient(ops, Z, y0, mask, p)
    for _ in range(3):
        E = g.standard_normal(Z.shape) + 1j * g.standard_normal(Z.shape)
        h = 1e-6
        fd = (symmetric_objective(ops, Z + h * E, y0, mask, p) - symmetric_objective(ops, Z - h * E, y0, mask, p)) / (2 * h)
        assert fd == pytest.approx(np.real(np.vdot(grad, E)), rel=1e-6)


def test_truth_is_a_stationary_point_with_zero_objective() -> None:
    from icml26.papers.hankel._init import spectral_init, takagi_factor

    x, mask = _instance(n=31, r=2, ratio=0.4)
    ops = HankelOps(31)
    Z = takagi_factor(spectral_init(ops, x, rank=2, rng=np.random.default_rng(0)))  # exact factor of H(x*)
    y0 = np.where(mask, x, 0)
    assert abs(symmetric_objective(ops, Z, y0, mask, mask.mean())) < 1e-16 * np.linalg.norm(x) ** 4
    assert np.linalg.norm(symmetric_gradient(ops, Z, y0, mask, mask.mean())) < 1e-8 * np.linalg.norm(x) ** 3


@pytest.mark.parametrize("method", sorted(METHODS))
def test_exact_recovery_on_a_small_instance(method: str) -> None:
    x, mask = _instance(kappa=2.0)
    res = hankel_complete(x, mask, rank=3, method=method, tol=1e-11, seed=0)
    assert res.converged and res.history.shape == (res.iterations,)
    assert np.linalg.norm(res.x - x) / np.linalg.norm(x) < 1e-8


def test_worked_example_jpgd_iterations_do_not_grow_with_kappa_while_shgd_does() -> None:
    its = {}
    for kappa in (1.0, 100.0):
        x, mask = _instance(n=127, r=4, kappa=kappa, ratio=0.3, seed=0)
        for m in ("jpgd", "shgd"):
            its[m, kappa] = hankel_complete(x, mask, rank=4, method=m, x_true=x, max_iter=600, seed=0).iterations
    assert its["jpgd", 100.0] < 1.5 * its["jpgd", 1.0] < 300
    assert its["shgd", 100.0] > 3 * its["jpgd", 100.0]


def test_jpgd_and_scaledgd_produce_the_same_iterates() -> None:
    """JPGD is ScaledGD restricted to R = conj(L); from the same spectral start their signals coincide."""
    x, mask = _instance(n=63, r=3, kappa=100.0, ratio=0.4)
    a = hankel_complete(x, mask, rank=3, method="jpgd", max_iter=20, tol=1e-300, seed=4)
    b = hankel_complete(x, mask, rank=3, method="scaledgd", max_iter=20, tol=1e-300, seed=4)
    np.testing.assert_allclose(a.x, b.x, rtol=1e-7, atol=1e-9 * np.abs(x).max())


def test_same_seed_same_result_and_unobserved_entries_are_ignored() -> None:
    x, mask = _instance()
    y = x.copy()
    y[~mask] = np.nan
    a = hankel_complete(x, mask, rank=3, seed=7, max_iter=50)
    b = hankel_complete(y, mask, rank=3, seed=7, max_iter=50)
    np.testing.assert_array_equal(a.x, b.x)
    np.testing.assert_array_equal(a.history, b.history)


def test_real_signal_is_accepted() -> None:
    n = 41
    k = np.arange(n)
    x = np.cos(2 * np.pi * 0.11 * k) + 0.5 * np.cos(2 * np.pi * 0.31 * k)  # rank 4 (two conjugate pairs)
    mask = np.zeros(n, bool)
    mask[np.random.default_rng(0).choice(n, 30, replace=False)] = True
    res = hankel_complete(x, mask, rank=4, seed=0)
    assert res.converged and np.abs(res.x - x).max() < 1e-7


def test_signal_has_rank_r_and_condition_number_close_to_kappa() -> None:
    import scipy.linalg as sla

    x, freqs, amps = make_spectral_signal(255, 5, kappa=100.0, seed=3)
    s = np.linalg.svd(sla.hankel(x[:128], x[127:]), compute_uv=False)
    assert s[5] < 1e-10 * s[0]
    assert 50 < s[0] / s[4] < 200
    assert np.abs(amps).max() / np.abs(amps).min() == pytest.approx(100.0)
    x2, _, _ = make_spectral_signal(255, 5, kappa=100.0, seed=3)
    np.testing.assert_array_equal(x, x2)


def test_fiht_step_matches_a_dense_tangent_space_projection() -> None:
    """Oracle: one FIHT step with dense matrices (P_T G = UUᴴG + GVVᴴ − UUᴴGVVᴴ, then a full SVD)."""
    import scipy.linalg as sla

    from icml26.papers.hankel._baselines import FIHT
    from icml26.papers.hankel._init import spectral_init

    x, mask = _instance(n=63, r=3, ratio=0.4)
    ops, p = HankelOps(63), mask.mean()
    y0 = np.where(mask, x, 0)
    init = spectral_init(ops, y0 / p, rank=3, rng=np.random.default_rng(1))
    fiht = FIHT(ops, init, y0, mask, p)
    U, s, V = init.U, init.s, init.V
    xd = ops.pinv(U * s, V.conj())
    for _ in range(3):
        g = np.where(mask, xd + (y0 - xd) / p, xd)
        G = sla.hankel(g[: ops.n1], g[ops.n1 - 1 :])
        PU, PV = U @ U.conj().T, V @ V.conj().T
        Uw, sw, Vh = np.linalg.svd(PU @ G + G @ PV - PU @ G @ PV)
        U, s, V = Uw[:, :3], sw[:3], Vh[:3].conj().T
        xd = ops.pinv(U * s, V.conj())
        np.testing.assert_allclose(fiht.step(), xd, rtol=0, atol=1e-11 * np.linalg.norm(xd))


def test_right_solve_matches_a_linear_solve() -> None:
    from icml26.papers.hankel._symmetric import right_solve

    g = np.random.default_rng(2)
    Z = g.standard_normal((40, 5)) + 1j * g.standard_normal((40, 5))
    P = Z.T @ Z.conj()
    A = g.standard_normal((40, 5)) + 1j * g.standard_normal((40, 5))
    np.testing.assert_allclose(right_solve(A, P) @ P, A, rtol=0, atol=1e-12 * np.abs(A).max())
    np.testing.assert_allclose(right_solve(A, P), np.linalg.solve(P.T, A.T).T, rtol=1e-12, atol=1e-14)


def test_jpgd_step_transforms_half_as_many_columns_as_scaledgd() -> None:
    """Cost per iteration: JPGD 2r + 2 length-N FFT columns (one factor), ScaledGD 4r + 2 (two factors)."""
    from icml26.papers.hankel._baselines import AsymmetricGD
    from icml26.papers.hankel._init import spectral_init, takagi_factor
    from icml26.papers.hankel._symmetric import SymmetricGD

    class CountingOps(HankelOps):
        columns = 0

        def fft(self, a):
            CountingOps.columns += 1 if np.ndim(a) == 1 else np.shape(a)[1]
            return super().fft(a)

        def _ifft(self, a):
            CountingOps.columns += 1 if np.ndim(a) == 1 else np.shape(a)[1]
            return super()._ifft(a)

    r = 3
    x, mask = _instance(n=63, r=r, ratio=0.4)
    ops, p = CountingOps(63), mask.mean()
    y0 = np.where(mask, x, 0)
    init = spectral_init(ops, y0 / p, rank=r, rng=np.random.default_rng(0))
    counts = {}
    for name, solver in [("jpgd", SymmetricGD(ops, takagi_factor(init), y0, mask, p, eta=0.5, sigma1=1.0, preconditioned=True)),
                         ("scaledgd", AsymmetricGD(ops, init, y0, mask, p, eta=0.5, scaled=True))]:
        CountingOps.columns = 0
        solver.step()
        counts[name] = CountingOps.columns
    assert counts == {"jpgd": 2 * r + 2, "scaledgd": 4 * r + 2}


def test_method_order_rotates_with_the_seed() -> None:
    from icml26.papers.hankel._checks import solve_task

    firsts = {solve_task((31, 1, 1.0, 0.5, False, s, ("jpgd", "scaledgd", "shgd"), 1e-6, 3))[0]["method"]
              for s in range(3)}
    assert firsts == {"jpgd", "scaledgd", "shgd"}
