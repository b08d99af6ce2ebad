"""Verdict rules of the [P14] claim checks: pure functions of the per-cell rows (tested on planted rows).

Every bar is fixed before the run (notes, issue, or review; see each rule). A "cell" is one (problem, regime, seed,
tol) combination; rows are dicts of the numbers measured there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from icml26.claims import Verdict
from icml26.common.stats import Estimate, ratio_ci

__all__ = ["SLACK", "TV_BAR", "residual_flags", "residual_verdict", "robustness_flags", "robustness_verdict",
           "smoothness_verdict", "worst_verdict"]

# Additive slack of the residual bars, relative to ||F|| (the notes wrote an absolute 1e-10; residuals scale with F, so
# an absolute slack would depend on the units of u). In exactly singular cells the minimum itself is ~1e-15 ||F||,
# so 1e-10 ||F|| only absorbs round-off, never a bias.
SLACK = 1e-10
TV_BAR = 10.0  # smoothness: TV(TSVD) / TV(DFO) >= 10 (the issue)


def residual_flags(row: dict) -> dict[str, bool]:
    """Bars of ``residual_minimisation`` in one cell (means along DFO's / Tikhonov's own trajectories).

    ``a_ok`` (verdict): ``r_dfo <= 1.01 r_trunc + SLACK ||F||``, r_trunc the truncated minimum at the same theta and
    tol (the best residual any method with that truncation can reach): the history costs no residual.
    ``b_ok`` (verdict; notes): ``r_tikhonov >= 10 r_dfo`` with ``lambda = (tol sigma_max)^2``: Tikhonov is biased.
    ``a_ls`` (reported only): ``r_dfo <= 1.01 r_min + SLACK ||F||``, r_min the machine-precision LS minimum; it also
    measures the tol truncation, which DFO shares with TSVD.
    """
    slack = SLACK * row["f_norm"]
    return {"a_ok": bool(row["r_dfo"] <= 1.01 * row["r_trunc"] + slack),
            "b_ok": bool(row["r_tikhonov"] >= 10.0 * row["r_dfo"]),
            "a_ls": bool(row["r_dfo"] <= 1.01 * row["r_min"] + slack)}


def residual_verdict(rows: Sequence[dict]) -> Verdict:
    """``holds`` iff ``a_ok`` and ``b_ok`` (:func:`residual_flags`) in every cell of the tol sweep, else ``fails``."""
    flags = [residual_flags(r) for r in rows]
    return Verdict.HOLDS if rows and all(f["a_ok"] and f["b_ok"] for f in flags) else Verdict.FAILS


def smoothness_verdict(tv_tsvd: Sequence[float], tv_dfo: Sequence[float]) -> tuple[Verdict, Estimate]:
    """One problem: ratio of means TV(TSVD)/TV(DFO) with a paired bootstrap CI (seed 0) against ``TV_BAR``.

    ``holds``: CI low >= 10; ``fails``: CI high < 10; ``inconclusive``: the CI straddles 10, or fewer than 3 seeds
    (one seed gives a CI without spread).
    """
    est = ratio_ci(list(tv_tsvd), list(tv_dfo), seed=0)
    if len(tv_tsvd) < 3:
        return Verdict.INCONCLUSIVE, est
    if est.lo >= TV_BAR:
        return Verdict.HOLDS, est
    return (Verdict.FAILS if est.hi < TV_BAR else Verdict.INCONCLUSIVE), est


def worst_verdict(verdicts: Sequence[Verdict]) -> Verdict:
    """All hold -> holds; any fails -> fails; otherwise inconclusive."""
    if verdicts and all(v is Verdict.HOLDS for v in verdicts):
        return Verdict.HOLDS
    return Verdict.FAILS if any(v is Verdict.FAILS for v in verdicts) else Verdict.INCONCLUSIVE


def robustness_flags(row: dict) -> dict[str, bool]:
    """Bars of ``singular_robustness`` in one cell (final relative errors; inf = blow-up).

    ``ok`` (i): DFO finite and ``err_dfo <= 1.1 err_tsvd + 1e-12``. ``lstsq_worse`` (ii): plain lstsq DF blew up, or
    ``err_lstsq > 1.1 err_dfo + 1e-12`` with DFO finite.
    """
    e_dfo, e_ls = row["err_dfo"], row["err_lstsq"]
    return {"ok": bool(np.isfinite(e_dfo) and e_dfo <= 1.1 * row["err_tsvd"] + 1e-12),
            "lstsq_worse": bool(not np.isfinite(e_ls) or (np.isfinite(e_dfo) and e_ls > 1.1 * e_dfo + 1e-12))}


def robustness_verdict(rows: Sequence[dict]) -> Verdict:
    """``holds`` iff (i) ``ok`` in every cell (so DFO never blows up) and (ii) ``lstsq_worse`` in a strict majority
    of the cells (bar set in review before the run; it was ">= 1 cell", which says little), else ``fails``."""
    flags = [robustness_flags(r) for r in rows]
    n_worse = sum(f["lstsq_worse"] for f in flags)
    ok = bool(rows) and all(f["ok"] for f in flags) and 2 * n_worse > len(rows)
    return Verdict.HOLDS if ok else Verdict.FAILS
