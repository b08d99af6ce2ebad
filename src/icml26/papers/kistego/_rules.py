"""Verdict rules of the [P22] claims: pure functions of measured rows, built from :mod:`icml26.verdicts`.

- ``keyfree_extraction``: rows are one secret each, ``{"seed", "acc_clean", "acc_distorted", "acc_right_key",
  "acc_wrong_key", "acc_chance"}``. Four parts must hold: the mean clean bit accuracy meets ``clean_accuracy``, the
  mean accuracy after the distortion chain meets ``distorted_accuracy``, the key-dependent baseline with its right
  key clears chance (its accuracy minus the agreement of two unrelated secrets' shares) by ``right_key_excess`` (a
  baseline that recovers nothing with any key says nothing about needing one), and with a wrong key it stays within
  ``wrong_key_excess`` of chance. CIs are bootstrap over secrets; fewer than 3 seeds is inconclusive.
- ``posterior_fidelity``: rows are one secret each, ``{"seed", "psnr_dps", "ssim_dps", "baselines": {name:
  {"psnr", "ssim"}}}``. The strongest baseline is the one with the highest mean PSNR on these very rows (an
  oracle-tuned baseline); the paired PSNR gain must meet ``psnr_gain`` and the paired SSIM gain ``ssim_gain``.
- ``steganalysis_chance``: rows are one (seed, detector) each, ``{"seed", "detector", "auc"}``, optionally with
  ``"layout"``, ``"strength"`` and ``"operating"`` (a sweep over embedding points): only rows at the operating point
  (``operating`` true; rows without the key count) are judged; for every detector the mean AUC over seeds (bootstrap
  CI over seeds) must meet ``auc``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, enough_seeds

__all__ = ["RULES", "judge_extraction", "judge_fidelity", "judge_steganalysis"]


def _seeds(rows: Sequence[Mapping[str, Any]]) -> int:
    return len({r["seed"] for r in rows})


def _mean_ci(values: Sequence[float]) -> Any:
    return bootstrap_ci(np.asarray(values, dtype=float), seed=0)


def judge_extraction(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``keyfree_extraction`` (module docstring)."""
    if not rows:
        return Judgement(Verdict.INCONCLUSIVE, "no rows measured")
    few = enough_seeds(_seeds(rows))
    n = len(rows)
    parts = {
        "clean": against_bar("clean bit accuracy", _mean_ci([r["acc_clean"] for r in rows]), bars["clean_accuracy"],
                             n=n),
        "distorted": against_bar("bit accuracy after distortion", _mean_ci([r["acc_distorted"] for r in rows]),
                                 bars["distorted_accuracy"], n=n),
        "right_key": against_bar("right-key baseline accuracy - chance",
                                 _mean_ci([r["acc_right_key"] - r["acc_chance"] for r in rows]),
                                 bars["right_key_excess"], n=n),
        "wrong_key": against_bar("wrong-key baseline accuracy - chance",
                                 _mean_ci([r["acc_wrong_key"] - r["acc_chance"] for r in rows]),
                                 bars["wrong_key_excess"], n=n),
    }
    j = all_of(parts, what="parts", show=4)
    if few is not None:
        return Judgement(few.verdict, f"{few.reason}; measured: {j.reason}", j.measured)
    return j


def _strongest(rows: Sequence[Mapping[str, Any]]) -> str:
    names = sorted(rows[0]["baselines"])
    return max(names, key=lambda b: (float(np.mean([r["baselines"][b]["psnr"] for r in rows])), b))


def judge_fidelity(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``posterior_fidelity`` (module docstring): paired gains over the strongest baseline."""
    if not rows:
        return Judgement(Verdict.INCONCLUSIVE, "no rows measured")
    best = _strongest(rows)
    n = len(rows)
    dp = [r["psnr_dps"] - r["baselines"][best]["psnr"] for r in rows]
    ds = [r["ssim_dps"] - r["baselines"][best]["ssim"] for r in rows]
    parts = {"psnr": against_bar(f"PSNR gain over {best} (dB)", _mean_ci(dp), bars["psnr_gain"], n=n),
             "ssim": against_bar(f"SSIM gain over {best}", _mean_ci(ds), bars["ssim_gain"], n=n)}
    j = all_of(parts, what="parts", show=2)
    measured = {**j.measured, "strongest_baseline": best,
                "mean_psnr": {"dps": float(np.mean([r["psnr_dps"] for r in rows])),
                              **{b: float(np.mean([r["baselines"][b]["psnr"] for r in rows]))
                                 for b in sorted(rows[0]["baselines"])}},
                "mean_ssim": {"dps": float(np.mean([r["ssim_dps"] for r in rows])),
                              **{b: float(np.mean([r["baselines"][b]["ssim"] for r in rows]))
                                 for b in sorted(rows[0]["baselines"])}}}
    few = enough_seeds(_seeds(rows))
    if few is not None:
        return Judgement(few.verdict, f"{few.reason}; measured: {j.reason}", measured)
    return Judgement(j.verdict, j.reason, measured)


def judge_steganalysis(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``steganalysis_chance`` (module docstring): every detector's AUC CI over seeds meets ``auc`` at the operating
    point."""
    rows = [r for r in rows if r.get("operating", True)]
    detectors = sorted({r["detector"] for r in rows})
    if not detectors:
        return Judgement(Verdict.INCONCLUSIVE, "no rows measured")
    parts = {}
    for d in detectors:
        aucs = [r["auc"] for r in rows if r["detector"] == d]
        parts[d] = against_bar(f"{d} AUC", _mean_ci(aucs), bars["auc"], n=len(aucs), min_n=MIN_SEEDS)
    return all_of(parts, what="detectors", show=len(parts))


RULES = {"keyfree_extraction": judge_extraction, "posterior_fidelity": judge_fidelity,
         "steganalysis_chance": judge_steganalysis}
