"""Reference optimiser, PTAS and greedy buckets against brute force on tiny instances."""

import itertools
import math

import numpy as np
import pytest

from icml26.papers.gauss_sup import (
    equal_split,
    expected_max,
    expected_sum_max,
    greedy_buckets,
    optimal_allocation_reference,
    project_to_sphere,
    ptas_grid_size,
    ptas_single,
)


def test_zero_mean_reference_beats_every_equal_split():
    a = optimal_allocation_reference(np.zeros(6), restarts=2, seed=0)
    assert np.sum(a.sigma**2) == pytest.approx(1.0, abs=1e-12) and np.all(a.sigma >= 0)
    splits = [expected_max(np.zeros(6), equal_split(6, range(k))) for k in range(1, 7)]
    assert a.value >= max(splits) - 1e-12
    # the unused variables are constants 0 in the max: 4 large variances beat the 5-split (0.5231 > 0.5201)
    assert int((a.sigma**2 > 0.05).sum()) == 4
    assert a.value == pytest.approx(0.52403, abs=2e-5)
    assert a.value == pytest.approx(expected_max(np.zeros(6), a.sigma), abs=1e-12)


def test_reference_is_seeded_and_deterministic():
    mu = np.random.default_rng(0).uniform(0, 0.5, 5)
    a = optimal_allocation_reference(mu, restarts=2, seed=3)
    b = optimal_allocation_reference(mu, restarts=2, seed=3)
    assert a.value == b.value and np.array_equal(a.sigma, b.sigma)


def test_projection_onto_the_positive_sphere():
    assert np.allclose(project_to_sphere(np.array([3.0, -1.0, 4.0])), [0.6, 0.0, 0.8])
    assert np.allclose(project_to_sphere(np.array([-3.0, -1.0])), [0.0, 1.0])


def _brute_grid(mu: np.ndarray, units: int) -> float:
    """Best value over every allocation of `units` variance units to any variables (no prefix assumption)."""
    n, best = mu.size, -np.inf
    for comp in itertools.product(range(units + 1), repeat=n):
        if sum(comp) == units:
            best = max(best, expected_max(mu, np.sqrt(np.array(comp) / units)))
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ptas_equals_brute_force_on_its_grid(seed):
    mu = np.random.default_rng(seed).uniform(0, 0.6, 4)
    p = ptas_single(mu, eps=0.3)  # N = 7 units
    assert p.info["units"] == 7
    # the exchange argument: restricting the support to the top means loses nothing on the grid
    assert p.value == pytest.approx(_brute_grid(mu, 7), abs=1e-9)
    assert np.sum(p.sigma**2) == pytest.approx(1.0, abs=1e-12)


def test_ptas_within_one_minus_eps_of_reference():
    for mu in (np.zeros(6), np.random.default_rng(4).uniform(0, 0.5, 7)):
        p = ptas_single(mu, eps=0.25)
        ref = optimal_allocation_reference(mu, restarts=1, seed=0, inits=[p.sigma])
        assert p.value >= (1 - 0.25) * ref.value
        assert p.value <= ref.value + 1e-12


def test_ptas_grid_size_counts():
    units, count = ptas_grid_size(5, eps=0.5)  # N = 4: compositions of 4 into <= 4 parts = 2^3
    assert units == 4 and count == 8
    assert ptas_grid_size(100, eps=0.1) == (20, 2**19)


def test_greedy_buckets_against_brute_force_subsets():
    g = np.random.default_rng(0)
    n = 6
    mu = g.uniform(0, 0.5, n)
    sets = [np.array([0, 1, 2]), np.array([2, 3, 4, 5]), np.array([1, 5])]
    gb = greedy_buckets(mu, sets)
    assert np.sum(gb.sigma**2) == pytest.approx(1.0, abs=1e-12)
    assert gb.value == pytest.approx(expected_sum_max(mu, gb.sigma, sets), abs=1e-12)
    best_k = {}
    for k in (1, 2, 4, 6):
        best_k[k] = max(expected_sum_max(mu, equal_split(n, c), sets) for c in itertools.combinations(range(n), k))
        assert gb.info["bucket_values"][k] <= best_k[k] + 1e-12
    assert gb.value >= (1 - 1 / math.e) * max(best_k.values())  # greedy keeps most of the best bucket
    ref = optimal_allocation_reference(mu, sets, restarts=1, seed=0, inits=[gb.sigma])
    assert ref.value >= gb.value


def test_greedy_single_set_zero_mean_picks_the_four_or_five_split():
    gb = greedy_buckets(np.zeros(8))
    assert gb.info["k"] == 4 and gb.value == pytest.approx(expected_max(np.zeros(8), equal_split(8, range(4))))


def test_bad_input_algorithms():
    with pytest.raises(ValueError, match="eps must be in"):
        ptas_single([0.0, 1.0], eps=1.5)
    with pytest.raises(TypeError, match="eps must be a real"):
        ptas_single([0.0, 1.0], eps=True)
    with pytest.raises(ValueError, match="max_evaluations"):
        ptas_single(np.zeros(30), eps=0.05, max_evaluations=1000)
    with pytest.raises(ValueError, match="mu must be finite"):
        ptas_single([0.0, np.inf], eps=0.5)
    with pytest.raises(ValueError, match="levels must be"):
        greedy_buckets([0.0, 1.0], levels=(3,))
    with pytest.raises(ValueError, match=r"sets\[0\] must be a non-empty"):
        greedy_buckets([0.0, 1.0], [[]])
    with pytest.raises(ValueError, match="restarts"):
        optimal_allocation_reference([0.0, 1.0], restarts=-1, seed=0)
    with pytest.raises(ValueError, match="inits"):
        optimal_allocation_reference([0.0, 1.0], inits=[np.array([1.0, -1.0])], seed=0)
    with pytest.raises(ValueError, match="mu must be 1-dimensional"):
        optimal_allocation_reference(np.zeros((2, 2)), seed=0)
    with pytest.raises(ValueError, match="support must be non-empty"):
        equal_split(3, [])


@pytest.mark.parametrize("eps", [0, 0.0, -1, 1.0, 2])
def test_ptas_grid_size_rejects_bad_eps(eps):
    with pytest.raises(ValueError, match="eps must be in"):
        ptas_grid_size(5, eps=eps)


def test_ptas_grid_size_eps_is_keyword_only_and_n_checked():
    with pytest.raises(TypeError):
        ptas_grid_size(5, 0.5)
    with pytest.raises(ValueError, match="n must be an int >= 1"):
        ptas_grid_size(0, eps=0.5)
    with pytest.raises(TypeError, match="n must be an int"):
        ptas_grid_size(2.5, eps=0.5)


@pytest.mark.parametrize(("kw", "exc", "msg"), [({"chunk": 0}, ValueError, "chunk must be an int >= 1"),
                                                ({"chunk": 1.5}, TypeError, "chunk must be an int"),
                                                ({"max_evaluations": 0}, ValueError, "max_evaluations must be an int >= 1")])
def test_ptas_single_rejects_bad_chunk_and_limit(kw, exc, msg):
    with pytest.raises(exc, match=msg):
        ptas_single([0.0, 1.0], eps=0.5, **kw)


def test_ptas_single_chunk_does_not_change_the_result():
    mu = np.random.default_rng(5).uniform(0, 0.5, 5)
    a, b = ptas_single(mu, eps=0.3, chunk=1), ptas_single(mu, eps=0.3)
    assert a.value == b.value and np.array_equal(a.sigma, b.sigma)


@pytest.mark.parametrize("x", [[np.nan, 1.0], [np.inf, 0.0], [], [[1.0, 2.0]]])
def test_project_to_sphere_rejects_bad_x(x):
    with pytest.raises(ValueError, match="x must (be|not be empty)"):
        project_to_sphere(x)


def test_equal_split_rejects_non_integers():
    with pytest.raises(TypeError, match="support must be a 1-D collection of integer"):
        equal_split(3, [0.7, 1.9])
    with pytest.raises(TypeError, match="n must be an int"):
        equal_split(3.0, [0, 1])
    with pytest.raises(ValueError, match="n must be an int >= 1"):
        equal_split(0, [0])
    with pytest.raises(ValueError, match="outside"):
        equal_split(3, [0, 3])
    assert np.allclose(equal_split(3, np.array([2, 0])), [2**-0.5, 0.0, 2**-0.5])


@pytest.mark.parametrize("levels", [(1.7,), (1, 2.0), (True,), "12"])
def test_greedy_buckets_rejects_non_integer_levels(levels):
    with pytest.raises(TypeError, match="levels must"):
        greedy_buckets([0.0, 1.0, 0.5], levels=levels)
