"""Verdict rules of the [P14] claims: pure functions of per-cell rows, built from :mod:`icml26.verdicts`.

A cell is one (problem, regime, seed, tol); its row holds what was measured there (means along each method's own
trajectory). Every threshold is a declared bar of ``paper.toml``.

- ``residual_minimisation``: (a) DFO's mean residual is within the band ``r <= minimum_band × r_trunc +
  round_off × ||F||`` of the truncated minimum at the same states and tol (the best residual any method with that
  truncation reaches), in a share of cells meeting ``dfo_cells``; (b) regularisation introduces bias: Tikhonov's mean
  residual lies *above* the same band around the truncated minimum at its own states (paired, not against DFO's
  residual on another trajectory), in a share meeting ``biased_cells`` of the cells where the regularisation is
  active. Active: at some step, Tikhonov's filter differs from the truncation's by more than ``round_off`` in some
  direction of J (``tik_gap``). Elsewhere its residual differs from the truncated minimum by at most
  ``round_off × ||F||`` at every step, so it cannot leave the band: such a cell cannot show a bias. Without active
  cells (b) is inconclusive.
- ``smooth_velocities``: per problem, the paired bootstrap CI of mean TV(TSVD) / mean TV(DFO) over the cells meets
  ``tv_ratio`` (at least :data:`~icml26.verdicts.MIN_SEEDS` cells).
- ``singular_robustness``: (i) DFO stays finite and its final error is at most ``error_factor`` × TSVD's +
  ``error_floor`` in a share of cells meeting ``dfo_cells``; (ii) plain least-squares DF blows up or is worse than DFO
  by the same factor in a share of cells meeting ``lstsq_cells``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from icml26.claims import Bar, Verdict
from icml26.common.stats import ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, share

__all__ = ["RULES", "cell_label", "in_band", "judge_residual", "judge_robustness", "judge_smoothness", "worse"]


def _v(bar: Bar) -> float:
    return float(bar.value)  # type: ignore[arg-type]


def cell_label(row: Mapping[str, Any]) -> str:
    """A cell's display name."""
    return f"{row['problem']}/{row['regime']}/s{row['seed']}/tol={row['tol']:g}"


def in_band(r: float, r_trunc: float, f_norm: float, bars: Mapping[str, Bar]) -> bool:
    """``r <= minimum_band × r_trunc + round_off × ||F||``: at the truncated minimum up to the band and round-off."""
    return bool(r <= _v(bars["minimum_band"]) * r_trunc + _v(bars["round_off"]) * f_norm)


def judge_residual(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``residual_minimisation`` (module docstring): (a) DFO in the band everywhere, (b) Tikhonov above it where the
    regularisation is active."""
    at_min = [r for r in rows if in_band(r["r_dfo"], r["r_trunc"], r["f_norm"], bars)]
    part_a = share("cells with DFO at the truncated minimum", len(at_min), len(rows), bars["dfo_cells"])
    active = [r for r in rows if r["tik_gap"] > _v(bars["round_off"])]
    biased = [r for r in active if not in_band(r["r_tikhonov"], r["r_trunc_tik"], r["f_norm_tik"], bars)]
    if active:
        part_b = share("active cells with Tikhonov above the truncated minimum at its own states", len(biased),
                       len(active), bars["biased_cells"])
    else:
        part_b = Judgement(Verdict.INCONCLUSIVE, f"Tikhonov's filter equals the truncation's to round-off in all "
                           f"{len(rows)} cells: no bias can show")
    j = all_of({"(a) DFO at the minimum": part_a, "(b) regularisation biased": part_b}, what="parts", show=2)
    measured = {**j.measured, "cells": len(rows), "dfo_at_minimum": len(at_min),
                "dfo_missed": [cell_label(r) for r in rows if r not in at_min], "active_cells": len(active),
                "tikhonov_biased": len(biased), "inactive": [cell_label(r) for r in rows if r not in active],
                "tikhonov_unbiased": [cell_label(r) for r in active if r not in biased],
                "tikhonov_biased_by_tol": {f"{t:g}": f"{sum(r['tol'] == t for r in biased)}/"
                                                     f"{sum(r['tol'] == t for r in active)}"
                                           for t in sorted({r["tol"] for r in rows})}}
    return Judgement(j.verdict, j.reason, measured)


def judge_smoothness(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``smooth_velocities`` (module docstring): TV(TSVD)/TV(DFO) per problem against ``tv_ratio``."""
    parts, measured = {}, {}
    for prob in sorted({r["problem"] for r in rows}):
        sel = [r for r in rows if r["problem"] == prob]
        est = ratio_ci([r["tv_tsvd"] for r in sel], [r["tv_dfo"] for r in sel], seed=0)
        parts[prob] = against_bar(f"TV(TSVD)/TV(DFO) {prob}", est, bars["tv_ratio"], n=len(sel), min_n=MIN_SEEDS)
        measured[f"tv_ratio_{prob}"] = est.value
        measured[f"tv_ratio_{prob}_ci"] = [est.lo, est.hi]
        tik = sum(r["tv_tikhonov"] for r in sel) / sum(r["tv_dfo"] for r in sel)
        measured[f"tv_ratio_tikhonov_{prob}"] = tik
    j = all_of(parts, what="problems", show=len(parts))
    return Judgement(j.verdict, j.reason, {**j.measured, **measured})


def worse(err: float, ref: float, bars: Mapping[str, Bar]) -> bool:
    """A method is worse than a reference: it blew up (inf) where the reference did not, or its final error exceeds
    ``error_factor`` × the reference's + ``error_floor``."""
    if not math.isfinite(err):
        return math.isfinite(ref)
    return bool(math.isfinite(ref) and err > _v(bars["error_factor"]) * ref + _v(bars["error_floor"]))


def judge_robustness(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``singular_robustness`` (module docstring): (i) DFO finite and not worse than TSVD, (ii) lstsq DF worse than
    DFO or blown up, each in its share of cells."""
    ok = [r for r in rows if math.isfinite(r["err_dfo"]) and not worse(r["err_dfo"], r["err_tsvd"], bars)]
    ls_worse = [r for r in rows if not math.isfinite(r["err_lstsq"]) or worse(r["err_lstsq"], r["err_dfo"], bars)]
    parts = {
        "(i) DFO finite and within the TSVD factor": share("cells with DFO not worse than TSVD", len(ok), len(rows),
                                                           bars["dfo_cells"]),
        "(ii) lstsq DF blows up or is worse": share("cells with lstsq DF worse than DFO", len(ls_worse), len(rows),
                                                    bars["lstsq_cells"]),
    }
    j = all_of(parts, what="parts", show=2)
    measured = {**j.measured, "cells": len(rows), "cells_ok": len(ok), "cells_lstsq_worse": len(ls_worse),
                "dfo_missed": [cell_label(r) for r in rows if r not in ok],
                "dfo_blowups": sum(not math.isfinite(r["err_dfo"]) for r in rows)}
    return Judgement(j.verdict, j.reason, measured)


RULES = {"residual_minimisation": judge_residual, "smooth_velocities": judge_smoothness,
         "singular_robustness": judge_robustness}
