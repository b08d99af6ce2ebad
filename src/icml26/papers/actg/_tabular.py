"""Stage 1 of [P28]: MST (McKenna, Miklau & Sheldon 2021), a DP synthesizer of the attribute table over noisy
marginals, and the marginal TV used to evaluate it.

The paper runs AIM (private-pgm) on the annotated table; we run MST, AIM's predecessor from the same authors, at toy
scale. Its zCDP budget ρ is split in three equal parts: (1) every 1-way marginal is measured with the Gaussian
mechanism; (2) d − 1 edges of a spanning tree are chosen by the exponential mechanism, scoring each pair of
attributes by the L1 error of its 2-way marginal under the independent model fitted to step (1) (the private step:
the true 2-way counts are read); (3) the 2-way marginals of the chosen edges are measured with the Gaussian
mechanism. Private-PGM (``_pgm.py``) then fits the tree model consistent with all noisy marginals, and rows are
sampled from it (post-processing). MST's compression of rare attribute values is left out (our domains are small).
The accountant (``_privacy.py``) composes the three mechanisms with DP-SGD.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from icml26.common.validation import int_array, int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed
from icml26.papers.actg._pgm import estimate_total, fit_tree_model, orient, project_simplex, select_edges

__all__ = ["MSTSynth", "marginal_tv", "mst_parameters"]


def _check_table(table: object, cards: tuple[int, ...], name: str = "table") -> np.ndarray:
    t = int_array(table, name, ndim=2)
    if t.shape[1] != len(cards):
        raise ValueError(f"{name} must have {len(cards)} columns, got {t.shape[1]}")
    if (t < 0).any() or (t >= np.asarray(cards)).any():
        raise ValueError(f"{name} holds a value index outside its attribute's range {cards}")
    return t


def _counts(t: np.ndarray, cols: tuple[int, ...], cards: tuple[int, ...]) -> np.ndarray:
    c = np.zeros(tuple(cards[i] for i in cols))
    np.add.at(c, tuple(t[:, i] for i in cols), 1.0)
    return c


def mst_parameters(*, rho: float, n_attributes: int) -> tuple[float, float]:
    """MST's mechanisms at total zCDP ``rho`` over ``n_attributes`` attributes (d), ρ/3 each ([P28] stage 1):
    the Gaussian noise multiplier σ = sqrt(3/(2ρ)) of each measurement round (the stacked marginals, each scaled by
    1/sqrt(#marginals), have L2 sensitivity 1 under add/remove of a row: ρ/3 = 1/(2σ²)), and the ε of each of the
    d − 1 exponential-mechanism rounds, ε = sqrt(8·(ρ/3)/(d − 1)) (ε-DP EM is ε²/8-zCDP, Cesar & Rogers 2021)."""
    rho = real(rho, "rho", lo=0.0, lo_open=True)
    d = int_at_least(n_attributes, "n_attributes", 2)
    return math.sqrt(3.0 / (2.0 * rho)), math.sqrt(8.0 * (rho / 3.0) / (d - 1))


@dataclass
class MSTSynth:
    """MST, the DP tabular synthesizer of [P28] stage 1 (see the module docstring), at total zCDP cost ``rho``.

    ``cardinalities`` gives each attribute's number of values; ``iters``: Private-PGM mirror-descent iterations.
    After :meth:`fit`: ``edges_`` (the chosen tree, in selection order), ``tree_`` ((parent, child) from attribute
    0), ``noisy_`` (clique -> noisy counts), ``node_marginals_`` / ``edge_marginals_`` (the fitted model).
    """

    rho: float
    cardinalities: tuple[int, ...]
    iters: int = 300

    def __post_init__(self) -> None:
        real(self.rho, "rho", lo=0.0, lo_open=True)
        if not isinstance(self.cardinalities, tuple) or len(self.cardinalities) < 2:
            raise ValueError("cardinalities must be a tuple of at least two attribute sizes")
        for k in self.cardinalities:
            positive_int(k, "cardinalities")
        positive_int(self.iters, "iters")

    @property
    def noise(self) -> tuple[float, float]:
        """Noise std of each noisy count: (1-way marginals, 2-way marginals of the tree's edges)."""
        d = len(self.cardinalities)
        sigma, _ = mst_parameters(rho=self.rho, n_attributes=d)
        return sigma * math.sqrt(d), sigma * math.sqrt(d - 1)

    @property
    def em_epsilon(self) -> float:
        """ε of each exponential-mechanism round of the tree selection."""
        return mst_parameters(rho=self.rho, n_attributes=len(self.cardinalities))[1]

    def selection_scores(self, table: np.ndarray, one_way: dict[int, np.ndarray]) -> dict[tuple[int, int], float]:
        """MST's score of each pair (i, j): ||M_ij(table) − N̂·m̂_i ⊗ m̂_j||_1, the 2-way error of the independent
        model fitted to the noisy 1-way counts ``one_way`` (sensitivity 1 under add/remove of a row)."""
        cards = self.cardinalities
        t = _check_table(table, cards)
        total = estimate_total({(i,): (v, self.noise[0]) for i, v in one_way.items()})
        ind = {i: project_simplex(v / total) for i, v in one_way.items()}
        return {(i, j): float(np.abs(_counts(t, (i, j), cards) - total * np.outer(ind[i], ind[j])).sum())
                for i, j in itertools.combinations(range(len(cards)), 2)}

    def fit(self, table: np.ndarray, *, seed: int) -> MSTSynth:
        """Run MST's three private steps on ``table`` (rows of value indices) and fit the tree model."""
        cards = self.cardinalities
        t = _check_table(table, cards)
        g = np.random.default_rng(check_seed(seed))
        d = len(cards)
        s1, s2 = self.noise
        self.noisy_: dict[tuple[int, ...], np.ndarray] = {
            (i,): _counts(t, (i,), cards) + g.normal(0.0, s1, cards[i]) for i in range(d)}
        scores = self.selection_scores(t, {i: self.noisy_[(i,)] for i in range(d)})
        self.edges_ = select_edges(scores, d, epsilon=self.em_epsilon, sensitivity=1.0, g=g)
        for e in self.edges_:
            self.noisy_[e] = _counts(t, e, cards) + g.normal(0.0, s2, (cards[e[0]], cards[e[1]]))
        meas = {c: (v, s1 if len(c) == 1 else s2) for c, v in self.noisy_.items()}
        self.tree_ = orient(self.edges_, d)
        self.node_marginals_, self.edge_marginals_, self.total_ = fit_tree_model(meas, self.tree_, cards,
                                                                                 iters=self.iters)
        return self

    def sample(self, n: int, *, seed: int) -> np.ndarray:
        """``n`` synthetic rows from the fitted tree model (post-processing: no further privacy cost): attribute 0
        from its marginal, then each child given its parent from the edge marginal."""
        if not hasattr(self, "tree_"):
            raise RuntimeError("call fit() before sample()")
        n = positive_int(n, "n")
        g = np.random.default_rng(check_seed(seed))
        out = np.zeros((n, len(self.cardinalities)), dtype=np.int64)
        out[:, 0] = g.choice(self.cardinalities[0], size=n, p=self.node_marginals_[0] / self.node_marginals_[0].sum())
        for parent, child in self.tree_:
            m = self.edge_marginals_[(parent, child)] if parent < child else self.edge_marginals_[(child, parent)].T
            cond = m / np.maximum(m.sum(1, keepdims=True), 1e-300)
            cdf = np.cumsum(cond[out[:, parent]], axis=1)
            out[:, child] = np.minimum((g.random(n)[:, None] > cdf).sum(1), cond.shape[1] - 1)
        return out


def marginal_tv(a: np.ndarray, b: np.ndarray, *, cardinalities: tuple[int, ...], order: int = 1) -> float:
    """Mean total-variation distance between the ``order``-way attribute marginals of two tables ([P28]'s feature
    divergence). Values may include -1 (the extractor's "not named"), counted as one more category."""
    if order not in (1, 2):
        raise ValueError(f"order must be 1 or 2, got {order!r}")
    cards = tuple(k + 1 for k in cardinalities)
    ta = _check_table(int_array(a, "a", ndim=2) + 1, cards, "a")
    tb = _check_table(int_array(b, "b", ndim=2) + 1, cards, "b")
    tvs = []
    for cols in itertools.combinations(range(len(cards)), order):
        shape = tuple(cards[c] for c in cols)
        ha = np.zeros(shape)
        hb = np.zeros(shape)
        np.add.at(ha, tuple(ta[:, c] for c in cols), 1.0)
        np.add.at(hb, tuple(tb[:, c] for c in cols), 1.0)
        tvs.append(0.5 * np.abs(ha / ha.sum() - hb / hb.sum()).sum())
    return float(np.mean(tvs))
