"""The server of [P09]: global feature prototypes and entropy-weighted aggregation of logit prototypes.

Each client k uploads, per class c it holds: a feature prototype p_k^c (mean projected feature, shared space R^{d_s}),
a logit prototype l_k^c (mean logits, R^C) and its count n_k^c. The server returns (our reconstruction):

    g^c = Σ_k n_k^c p_k^c / Σ_k n_k^c                                       (feature prototypes, count-weighted)
    w_k^c = exp(−H(softmax(l_k^c)) / T_w) / Σ_{j: n_j^c > 0} exp(−H(softmax(l_j^c)) / T_w)   (entropy weights)
    L^c = Σ_k w_k^c l_k^c                                                   (global logit prototypes)

so a client whose class-c decisions are confident (low entropy) weighs more in class c's global decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.common.validation import choice, positive_int, real, real_array

__all__ = ["WEIGHTINGS", "GlobalKnowledge", "Server", "entropy_weights"]

#: how logit prototypes are weighted over the clients holding a class
WEIGHTINGS: tuple[str, ...] = ("entropy", "uniform", "count")


def _entropy(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    return -(np.exp(logp) * logp).sum(axis=-1)


def _counts(counts: Any, shape: tuple[int, int]) -> np.ndarray:
    n = real_array(counts, "counts", ndim=2, shape=shape)
    if np.any(n < 0) or np.any(n != np.round(n)):
        raise ValueError("counts must hold non-negative integers (samples per client and class)")
    return n


def entropy_weights(logit_protos: Any, counts: Any, *, temperature: float = 1.0, weighting: str = "entropy"
                    ) -> np.ndarray:
    """The weights w_k^c of [P09]'s decision-level aggregation (module docstring), shape (K, C).

    ``weighting``: ``"entropy"`` (the paper's, as reconstructed), ``"uniform"`` (1 / #holders: the ablation and the
    logit-averaging baseline) or ``"count"`` (n_k^c / Σ_j n_j^c). Clients without class c get weight 0; for every
    class some client holds, the weights over clients sum to one; a class nobody holds has all-zero weights.

    Args:
        logit_protos: (K, C, C) logit prototypes l_k^c (rows of clients that lack class c are ignored).
        counts: (K, C) samples per client and class.
        temperature: T_w > 0 (entropy weighting only).
        weighting: one of :data:`WEIGHTINGS`.
    """
    lp = real_array(logit_protos, "logit_protos", ndim=3)
    k, c, c2 = lp.shape
    if c != c2:
        raise ValueError(f"logit_protos must have shape (K, C, C), got {lp.shape}")
    n = _counts(counts, (k, c))
    t = real(temperature, "temperature", lo=0.0, lo_open=True)
    weighting = choice(weighting, "weighting", WEIGHTINGS)
    held = n > 0
    if weighting == "uniform":
        score = np.where(held, 0.0, -np.inf)
    elif weighting == "count":
        score = np.where(held, np.log(np.where(held, n, 1.0)), -np.inf)
    else:
        score = np.where(held, -_entropy(lp) / t, -np.inf)
    top = np.max(score, axis=0, keepdims=True)
    e = np.where(held, np.exp(score - np.where(np.isfinite(top), top, 0.0)), 0.0)
    tot = e.sum(axis=0, keepdims=True)
    return np.divide(e, tot, out=np.zeros_like(e), where=tot > 0)


@dataclass(frozen=True)
class GlobalKnowledge:
    """What the [P09] server broadcasts: ``protos`` (C, d_s) feature prototypes g, ``logit_protos`` (C, C) the
    global logit prototypes L, ``weights`` (K, C) the aggregation weights used, ``present`` (C,) the classes that
    some client holds (absent classes have zero rows and are skipped by the losses)."""

    protos: np.ndarray
    logit_protos: np.ndarray
    weights: np.ndarray
    present: np.ndarray


class Server:
    """The [P09] server: count-weighted feature prototypes and entropy-weighted logit prototypes (module docstring).

    Args:
        n_classes: C.
        weighting: logit-prototype weighting (:data:`WEIGHTINGS`; ``"entropy"`` is the paper's).
        temperature: entropy-weighting temperature T_w.
    """

    def __init__(self, n_classes: int, *, weighting: str = "entropy", temperature: float = 1.0) -> None:
        self.n_classes = positive_int(n_classes, "n_classes")
        self.weighting = choice(weighting, "weighting", WEIGHTINGS)
        self.temperature = real(temperature, "temperature", lo=0.0, lo_open=True)

    def aggregate(self, protos: Any, logit_protos: Any, counts: Any) -> GlobalKnowledge:
        """One aggregation of [P09] over the uploads of K clients.

        Args:
            protos: (K, C, d_s) client feature prototypes p_k^c (rows where n_k^c = 0 are ignored).
            logit_protos: (K, C, C) client logit prototypes l_k^c.
            counts: (K, C) samples per client and class n_k^c.
        """
        p = real_array(protos, "protos", ndim=3)
        k, c, _ = p.shape
        if c != self.n_classes:
            raise ValueError(f"protos must have C = n_classes = {self.n_classes} rows per client, got {c}")
        lp = real_array(logit_protos, "logit_protos", ndim=3, shape=(k, c, c))
        n = _counts(counts, (k, c))
        w = entropy_weights(lp, n, temperature=self.temperature, weighting=self.weighting)
        tot = n.sum(axis=0)
        present = tot > 0
        g = np.einsum("kc,kcd->cd", n, p) / np.where(present, tot, 1.0)[:, None]
        lg = np.einsum("kc,kcj->cj", w, lp)
        return GlobalKnowledge(protos=g.astype(np.float32), logit_protos=lg.astype(np.float32), weights=w,
                               present=present)
