import numpy as np
import pytest

from icml26.common import seeding, stats


def test_bootstrap_ci_brackets_the_mean_and_is_seeded():
    x = np.random.default_rng(0).normal(3.0, 1.0, size=200)
    a = stats.bootstrap_ci(x, seed=1)
    b = stats.bootstrap_ci(x, seed=1)
    assert a == b
    assert a.lo < x.mean() < a.hi
    # the CI of the mean of 200 unit-variance draws has half-width ~ 1.96/sqrt(200) = 0.139
    assert 0.08 < (a.hi - a.lo) / 2 < 0.2
    assert not a.excludes(x.mean()) and a.excludes(x.mean() + 1)


def test_bootstrap_single_value_collapses():
    e = stats.bootstrap_ci([2.5])
    assert (e.value, e.lo, e.hi) == (2.5, 2.5, 2.5)


def test_ratio_ci_paired():
    den = np.array([1.0, 2.0, 3.0, 4.0])
    e = stats.ratio_ci(2 * den, den)
    assert e.value == pytest.approx(2.0)
    assert e.lo == pytest.approx(2.0) and e.hi == pytest.approx(2.0)  # exact ratio in every resample
    with pytest.raises(ValueError, match="equal lengths"):
        stats.ratio_ci([1.0, 2.0], [1.0])


def test_loglog_slope_recovers_power_law():
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    e = stats.loglog_slope(x, 3.0 * x**2)
    assert e.value == pytest.approx(2.0, abs=1e-12)
    noisy = 3.0 * x**2 * np.exp(np.random.default_rng(0).normal(0, 0.05, x.size))
    e2 = stats.loglog_slope(x, noisy)
    assert e2.lo < 2.0 < e2.hi


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: stats.bootstrap_ci([]), "non-empty"),
        (lambda: stats.bootstrap_ci([1.0, np.nan]), "finite"),
        (lambda: stats.bootstrap_ci([1.0, 2.0], level=1.5), "level"),
        (lambda: stats.loglog_slope([1, 2], [1, 2]), "at least 3"),
        (lambda: stats.loglog_slope([1, 2, -3], [1, 2, 3]), "positive"),
        (lambda: stats.ratio_ci([1.0], [0.0]), "zero"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_seeding_helpers():
    assert seeding.spawn_seeds(3, 4) == seeding.spawn_seeds(3, 4)
    assert len(set(seeding.spawn_seeds(3, 4))) == 4
    g = np.random.default_rng(1)
    assert seeding.rng(g) is g
    assert seeding.rng(5).random() == np.random.default_rng(5).random()
    with pytest.raises(TypeError, match="seed"):
        seeding.rng("x")
    with pytest.raises(TypeError, match="seed"):
        seeding.seed_everything(1.5)


def test_single_thread_limits_and_restores():
    import torch
    from threadpoolctl import threadpool_info

    from icml26.common.threads import single_thread

    before = torch.get_num_threads()
    with single_thread():
        assert torch.get_num_threads() == 1
        assert all(p["num_threads"] == 1 for p in threadpool_info())
    assert torch.get_num_threads() == before


def test_bootstrap_of_three_values_is_min_max():
    e = stats.bootstrap_ci([-0.01, 0.02, 0.5], seed=0)
    assert (e.lo, e.hi) == (-0.01, 0.5)  # documented: few seeds give a [min, max] interval


def test_loglog_slope_of_a_constant_is_exactly_zero():
    from icml26.common.stats import loglog_slope

    est = loglog_slope([1, 2, 4, 8], [3.0, 3.0, 3.0, 3.0])  # an exact fit: no spread, not an undefined CI
    assert (est.value, est.lo, est.hi) == (0.0, 0.0, 0.0)
    assert est.excludes(-0.5)
    with pytest.raises(ValueError, match="distinct"):
        loglog_slope([2, 2, 2], [1, 2, 3])
