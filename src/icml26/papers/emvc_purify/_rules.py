"""Verdict rules of the [P08] claims: pure functions of result rows, built from :mod:`icml26.verdicts`.

Every estimate is a mean over seeds with its percentile-bootstrap CI (:func:`icml26.common.stats.bootstrap_ci`); with
fewer than ``MIN_SEEDS`` seeds a cell is ``inconclusive``.

- ``detection_f1`` (rows: dataset, kind, rate, seed, f1): in every boundary-noise cell (dataset, rate), the F1 of
  the detected set minus the noise rate r (the F1 of a random detector flagging a fraction r) meets ``f1_margin``.
  Symmetric-noise rows are the control: reported, not judged.
- ``feb_kendall`` (rows: rate, seed, tau_noisy, tau_purified): at every noise rate, τ_purified − τ_noisy meets
  ``tau_gain``.
- ``accuracy_gain`` (rows: rate, seed, acc_noisy, acc_purified): at the judged rate, the best individual's clean
  test accuracy with purified minus with noisy labels meets ``gain``.
- ``no_harm_clean`` (rows: dataset, seed, acc_original, acc_purified): on every data set, purified − original is
  non-inferior within ``harm_margin``.
- ``beats_baselines`` (rows: dataset, rate, seed, acc_ours, acc_<baseline>): every (dataset, rate, baseline)
  difference ours − baseline meets ``advantage``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, non_inferior

__all__ = ["RULES", "judge_baselines", "judge_detection", "judge_feb", "judge_gain", "judge_no_harm"]

BASELINES = ("small_loss", "confident_learning")


def _cells(rows: Sequence[dict[str, Any]], keys: tuple[str, ...]) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    out: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in keys), []).append(r)
    return {k: sorted(v, key=lambda r: r["seed"]) for k, v in sorted(out.items())}


def _diff_part(name: str, diffs: list[float], bar: Bar) -> Judgement:
    return against_bar(name, bootstrap_ci(diffs, seed=0), bar, n=len(diffs), min_n=MIN_SEEDS)


def judge_detection(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``detection_f1`` (module docstring): F1 − r over seeds in every boundary-noise cell."""
    cells = _cells([r for r in rows if r["kind"] == "boundary"], ("dataset", "rate"))
    if not cells:
        return Judgement(Verdict.INCONCLUSIVE, "no boundary-noise rows to judge")
    parts = {f"{d} r={rate:g}": _diff_part("F1 − r", [x["f1"] - rate for x in rs], bars["f1_margin"])
             for (d, rate), rs in cells.items()}
    return all_of(parts, what="boundary-noise cells", show=len(parts))


def judge_feb(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``feb_kendall`` (module docstring): τ_purified − τ_noisy over seeds at every noise rate."""
    cells = _cells(rows, ("rate",))
    parts = {f"r={rate:g}": _diff_part("τ_purified − τ_noisy", [x["tau_purified"] - x["tau_noisy"] for x in rs],
                                       bars["tau_gain"]) for (rate,), rs in cells.items()}
    return all_of(parts, what="noise rates", show=len(parts))


def judge_gain(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar], rate: float) -> Judgement:
    """``accuracy_gain`` (module docstring): purified − noisy best-individual accuracy at noise rate ``rate``."""
    sel = sorted((r for r in rows if r["rate"] == rate), key=lambda r: r["seed"])
    if not sel:
        return Judgement(Verdict.INCONCLUSIVE, f"no rows at rate {rate:g}")
    return _diff_part(f"accuracy gain at r={rate:g}", [r["acc_purified"] - r["acc_noisy"] for r in sel], bars["gain"])


def judge_no_harm(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``no_harm_clean`` (module docstring): purified − original non-inferior on every data set."""
    parts = {}
    for (d,), rs in _cells(rows, ("dataset",)).items():
        diffs = [r["acc_purified"] - r["acc_original"] for r in rs]
        parts[d] = non_inferior("purified − original accuracy", bootstrap_ci(diffs, seed=0), bars["harm_margin"],
                                n=len(diffs), min_n=MIN_SEEDS)
    return all_of(parts, what="data sets", show=len(parts))


def judge_baselines(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar],
                    baselines: Sequence[str] = BASELINES) -> Judgement:
    """``beats_baselines`` (module docstring): ours − baseline in every (dataset, rate, baseline) cell."""
    parts = {}
    for (d, rate), rs in _cells(rows, ("dataset", "rate")).items():
        for b in baselines:
            parts[f"{d} r={rate:g} vs {b}"] = _diff_part(f"ours − {b} accuracy",
                                                         [x["acc_ours"] - x[f"acc_{b}"] for x in rs], bars["advantage"])
    return all_of(parts, what="(data set, rate, baseline) cells", show=len(parts))


RULES = {"detection_f1": judge_detection, "feb_kendall": judge_feb, "accuracy_gain": judge_gain,
         "no_harm_clean": judge_no_harm, "beats_baselines": judge_baselines}
UNJUDGED: dict[str, str] = {}
