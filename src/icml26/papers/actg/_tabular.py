"""Stage 1 of [P28]: a DP synthesizer of the attribute table over noisy marginals (MST-style), and marginal TV.

The paper runs AIM (private-pgm) on the annotated table. We reconstruct the MST family at toy scale: every 2-way
marginal is measured once with the Gaussian mechanism (one release, L2 sensitivity sqrt(#pairs) under add/remove of
a row), then, by post-processing only, a maximum spanning tree of the noisy mutual informations is chosen
(Chow-Liu) and rows are sampled from the tree model built from the noisy tables. MST proper spends a share of its
budget to select the tree with the exponential mechanism; measuring all pairs instead keeps the release a single
Gaussian event, which the accountant (``_privacy.py``) composes with DP-SGD.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from icml26.common.validation import int_array, positive_int, real
from icml26.common.validation import seed as check_seed

__all__ = ["MSTSynth", "marginal_tv"]


def _check_table(table: object, cards: tuple[int, ...], name: str = "table") -> np.ndarray:
    t = int_array(table, name, ndim=2)
    if t.shape[1] != len(cards):
        raise ValueError(f"{name} must have {len(cards)} columns, got {t.shape[1]}")
    if (t < 0).any() or (t >= np.asarray(cards)).any():
        raise ValueError(f"{name} holds a value index outside its attribute's range {cards}")
    return t


def _counts(t: np.ndarray, i: int, j: int, cards: tuple[int, ...]) -> np.ndarray:
    c = np.zeros((cards[i], cards[j]))
    np.add.at(c, (t[:, i], t[:, j]), 1.0)
    return c


def _mutual_information(p: np.ndarray) -> float:
    p = p / p.sum()
    pi, pj = p.sum(1, keepdims=True), p.sum(0, keepdims=True)
    m = p > 0
    return float((p[m] * np.log(p[m] / (pi @ pj)[m])).sum())


@dataclass
class MSTSynth:
    """DP tabular synthesizer for [P28] stage 1 (MST-style over noisy 2-way marginals; see the module docstring).

    ``noise_multiplier`` is σ/Δ of the Gaussian mechanism (noise std divided by the L2 sensitivity sqrt(#pairs));
    its zCDP cost is ρ = 1 / (2·noise_multiplier²). ``cardinalities`` gives each attribute's number of values.
    """

    noise_multiplier: float
    cardinalities: tuple[int, ...]

    def __post_init__(self) -> None:
        real(self.noise_multiplier, "noise_multiplier", lo=0.0, lo_open=True)
        if not isinstance(self.cardinalities, tuple) or len(self.cardinalities) < 2:
            raise ValueError("cardinalities must be a tuple of at least two attribute sizes")
        for k in self.cardinalities:
            positive_int(k, "cardinalities")

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """The measured 2-way marginals."""
        return list(itertools.combinations(range(len(self.cardinalities)), 2))

    @property
    def sensitivity(self) -> float:
        """L2 sensitivity of the vector of all 2-way counts (one row adds one count to each pair)."""
        return math.sqrt(len(self.pairs))

    @property
    def rho(self) -> float:
        """The release's zCDP cost: Δ² / (2σ²)."""
        return 1.0 / (2.0 * self.noise_multiplier**2)

    def fit(self, table: np.ndarray, *, seed: int) -> MSTSynth:
        """Measure the noisy 2-way marginals of ``table`` (rows of value indices) and fit the tree model."""
        cards = self.cardinalities
        t = _check_table(table, cards)
        g = np.random.default_rng(check_seed(seed))
        sigma = self.noise_multiplier * self.sensitivity
        self.noisy_ = {(i, j): _counts(t, i, j, cards) + g.normal(0.0, sigma, (cards[i], cards[j]))
                       for i, j in self.pairs}
        clipped = {k: np.clip(v, 0.0, None) + 1e-3 for k, v in self.noisy_.items()}  # post-processing
        self.tree_ = self._spanning_tree({k: _mutual_information(v) for k, v in clipped.items()})
        d = len(cards)
        self.root_marginal_ = np.mean([clipped[k].sum(1) if k[0] == 0 else clipped[k].sum(0)
                                       for k in self.pairs if 0 in k], axis=0)
        self.root_marginal_ = self.root_marginal_ / self.root_marginal_.sum()
        self.conditionals_: dict[int, tuple[int, np.ndarray]] = {}
        for parent, child in self.tree_:
            p = clipped[(parent, child)] if parent < child else clipped[(child, parent)].T
            self.conditionals_[child] = (parent, p / p.sum(1, keepdims=True))
        self.order_ = [0] + [c for _, c in self.tree_]
        assert len(self.order_) == d
        return self

    def _spanning_tree(self, mi: dict[tuple[int, int], float]) -> list[tuple[int, int]]:
        """Prim's maximum spanning tree rooted at attribute 0, as (parent, child) edges in visiting order."""
        d = len(self.cardinalities)
        seen, edges = {0}, []
        while len(seen) < d:
            best = max(((i, j) for i in seen for j in range(d) if j not in seen),
                       key=lambda e: mi[(min(e), max(e))])
            edges.append(best)
            seen.add(best[1])
        return edges

    def sample(self, n: int, *, seed: int) -> np.ndarray:
        """``n`` synthetic rows from the fitted tree model (post-processing: no further privacy cost)."""
        if not hasattr(self, "tree_"):
            raise RuntimeError("call fit() before sample()")
        n = positive_int(n, "n")
        g = np.random.default_rng(check_seed(seed))
        out = np.zeros((n, len(self.cardinalities)), dtype=np.int64)
        out[:, 0] = g.choice(len(self.root_marginal_), size=n, p=self.root_marginal_)
        for child in self.order_[1:]:
            parent, cond = self.conditionals_[child]
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
