"""Planted estimate tables on both sides of each [P36] bar (used by test_rules.py and the conformance test).

Errors are exact: per (method, n, policy) the noise is standardised to mean 0 and RMS ``sd * (500 / n) ** rate``, so
a planted bias and a planted rate come out as planted.
"""

import numpy as np

from support.planted import Planted

NS = (500, 1000, 2000, 4000)
TRUTH = 2.0
TRUTHS = {"pi_h": 1.75, "pi_blind": 2.22}  # Δ = V(π_h) − V(π_blind) = −0.47


def _noise(k: int, seed: int) -> np.ndarray:
    z = np.random.default_rng(seed).standard_normal(k)
    return (z - z.mean()) / z.std()


def est_rows(bias: dict, ns=NS, *, n_seeds: int = 2, reps: int = 20, sd: float = 1.0, rate: float = 0.5,
             truths=None, identified: bool = True) -> list[dict]:
    """Rows for methods ``bias[m]`` = a bias (float), a function n -> bias, or {policy: bias or function}; the noise
    has RMS ``sd * (500 / n) ** rate``."""
    truths = truths or {"pi": TRUTH}
    rows, k = [], n_seeds * reps
    for i, (m, b) in enumerate(sorted(bias.items())):
        per_policy = b if isinstance(b, dict) else {p: b for p in truths}
        for j, (p, bp) in enumerate(sorted(per_policy.items())):
            for n in ns:
                shift = bp(n) if callable(bp) else bp
                e = shift + sd * (500 / n) ** rate * _noise(k, 1000 * i + 100 * j + n)
                for idx in range(k):
                    rows.append({"seed": idx // reps, "rep": idx % reps, "n": n, "method": m, "policy": p,
                                 "estimate": truths[p] + float(e[idx]), "identified": identified})
    return rows


def vanishing(b0: float, power: float = 1.5):
    """A bias b0 at n = 500 that shrinks like n^-power."""
    def bias(n):
        return b0 * (500 / n) ** power
    return bias


def _consistency(bridge_bias, *, rate=0.5, **kw):
    rows = est_rows({"complete_case": -1.8, "oracle": 0.0}, **kw) + est_rows({"bridge": bridge_bias}, rate=rate, **kw)
    return {"rows": rows, "truth": TRUTH}


def _mar(cc, ipw, mcar=0.0, **kw):
    ends = (NS[0], NS[-1])
    return {"rows_mnar": est_rows({"complete_case": cc, "mar_ipw": ipw, "bridge": 0.0}, ends, **kw),
            "rows_mcar": est_rows({"complete_case": mcar, "mar_ipw": mcar, "bridge": 0.0}, ends, **kw),
            "truth_mnar": TRUTH, "truth_mcar": TRUTH}


def _policy(h, blind, **kw):
    return {"rows": est_rows({"bridge": {"pi_h": h, "pi_blind": blind}, "complete_case": -1.7}, (NS[-1],),
                             truths=TRUTHS, sd=0.3, **kw), "truths": TRUTHS}


def _ident(bridge_bias, *, accepted=True, refused=True, irrelevant_bias=-1.3, rate=0.5, **kw):
    ends = (NS[0], NS[-1])
    rel = est_rows({"complete_case": -1.8}, ends, **kw) + est_rows({"bridge": bridge_bias}, ends, identified=accepted,
                                                                    rate=rate, **kw)
    irr = est_rows({"bridge": irrelevant_bias}, ends, identified=not refused, **kw)
    return {"rows_relevant": rel, "rows_irrelevant": irr, "truth_relevant": TRUTH, "truth_irrelevant": TRUTH}


MORE = {"n_seeds": 5, "reps": 40}

PLANTED = {
    "consistency": Planted(
        holds=_consistency(0.0), fails=_consistency(-1.5),
        budget_variants=((_consistency(0.0, ns=(*NS, 8000, 16000), **MORE),
                          _consistency(-1.5, ns=(*NS, 8000, 16000), **MORE)),),
    ),
    "mar_biased": Planted(
        holds=_mar(-1.8, -2.3), fails=_mar(vanishing(-1.8), -2.3),
        budget_variants=((_mar(-1.8, -2.3, **MORE), _mar(vanishing(-1.8), -2.3, **MORE)),),
    ),
    "missingness_policy": Planted(
        holds=_policy(0.0, 0.0), fails=_policy(0.3, -0.3),
        budget_variants=((_policy(0.0, 0.0, **MORE), _policy(0.3, -0.3, **MORE)),),
    ),
    "identification": Planted(
        holds=_ident(0.0), fails=_ident(-1.8),  # a bridge as biased as complete case (e.g. beta = 0)
        budget_variants=((_ident(0.0, **MORE), _ident(-1.8, **MORE)),),
    ),
}
