"""[P33] Maximizing the expectation of the supremum of Gaussian families by allocating variance

(The seed abstract gives no title; this one is ours. The notes link the arXiv paper "Allocating Variance to Maximize
Expectation"; metadata in paper.toml.)

Problem. X_i ~ N(μ_i, σ_i²) independent, i ∈ [n]; choose σ with Σ_i σ_i² = 1 to maximise
    OPT = max_σ Σ_{j=1}^m E max_{i∈S_j} X_i,       S_j ⊆ [n].
A variable with σ_i = 0 is the constant μ_i and still takes part in each max.

The method, as implemented here:
- :func:`expected_max`, :func:`expected_sum_max` (+ ``_and_grad``): exact values and σ-gradients by adaptive
  composite Gauss-Legendre quadrature of ∫(1 − Π_i Φ((t − μ_i)/σ_i)) dt.
- :func:`mc_expected_max`, :func:`mc_expected_sum_max`: Monte Carlo (explicit seed, streamed in blocks), also for a
  covariance Σ.
- :func:`optimal_allocation_reference`: the oracle, projected gradient ascent on {σ ≥ 0, ‖σ‖ = 1} with restarts.
- :func:`ptas_single` (m = 1): support = the k largest means (an exchange argument), variances on a grid of
  N = ⌈2/ε⌉ units, exhaustive enumeration.
- :func:`greedy_buckets` (m > 1): for k ∈ {1, 2, 4, …, n} give 1/k to k greedily chosen variables; keep the best.

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``):
  1. ``concentration`` — OPT concentrates on a few variables as the sets grow (Abstract).
  2. ``ptas`` — a PTAS for m = 1 (Abstract); judged on the gain over max μ against an OPT found without the
     algorithm.
  3. ``log_n_approx`` — an O(log n)-approximation for m > 1 (Abstract); judged on the gain over σ = 0, and against
     trivial allocations, which meet the bound too at our n.
The approximation claims are judged on the gain because E max ≥ max μ pads any F/OPT ratio: even σ = 0 scores
0.58-0.87 of OPT on our instances.

Finding (zero means, m = 1): the notes' anchor "exactly 5 variables, 0.5201" leaves the unused variables out of the
max. They are constants 0 and stay in it; then OPT puts σ² ≈ 0.247 on 4 variables (plus a few below 0.01) and is
worth 0.52447 for every n ≥ 10 (0.52288 = four σ² = 1/4 at n = 5). Pinned by a regression test, not a claim.

Deviations: the paper's algorithms are reconstructed from the abstract and notes (no code, no full text). The PTAS
grid N = ⌈2/ε⌉ is a practical choice far coarser than a worst-case proof needs; the reference OPT is a local
method with restarts (a lower bound on OPT); the O(log n) bound uses our own constant (1 − 1/e)/(√2(⌊log₂ n⌋ + 2)).
"""

from icml26.papers.gauss_sup._approx import greedy_buckets, ptas_grid_size, ptas_single
from icml26.papers.gauss_sup._montecarlo import MCEstimate, mc_expected_max, mc_expected_sum_max
from icml26.papers.gauss_sup._optimize import Allocation, equal_split, optimal_allocation_reference, project_to_sphere
from icml26.papers.gauss_sup._quadrature import (
    expected_max,
    expected_max_and_grad,
    expected_sum_max,
    expected_sum_max_and_grad,
)

__all__ = [
    "Allocation",
    "MCEstimate",
    "equal_split",
    "expected_max",
    "expected_max_and_grad",
    "expected_sum_max",
    "expected_sum_max_and_grad",
    "greedy_buckets",
    "mc_expected_max",
    "mc_expected_sum_max",
    "optimal_allocation_reference",
    "project_to_sphere",
    "ptas_grid_size",
    "ptas_single",
]
