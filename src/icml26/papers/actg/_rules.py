"""Verdict rules of the [P28] claims: pure functions of rows, built from :mod:`icml26.verdicts`.

A pipeline row is one seed (``_pipeline.pipeline_row``): ``mauve_<system>``, ``tv_<system>``, ``control_<system>``
for the systems ``actg``, ``direct``, ``arl``, ``rl_only``. Differences and ratios are paired over seeds, with
bootstrap CIs; fewer than three seeds give ``inconclusive``. An accounting row is one (q, σ, T) setting with the
epsilons of the independent computations (``_checks.accounting_row``); those checks are deterministic (plain
numbers against the bars).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icml26.claims import Bar
from icml26.common.stats import bootstrap_ci, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of

__all__ = ["RULES", "UNJUDGED", "judge_accounting", "judge_actg_vs_direct", "judge_arl", "judge_rl_only"]


def _diff(rows: Sequence[Mapping[str, Any]], a: str, b: str) -> Any:
    return bootstrap_ci([float(r[a]) - float(r[b]) for r in rows], seed=0)


def _ratio(rows: Sequence[Mapping[str, Any]], a: str, b: str) -> Any:
    return ratio_ci([float(r[a]) for r in rows], [float(r[b]) for r in rows], paired=True, seed=0)


def _means(rows: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> dict[str, float]:
    return {k: sum(float(r[k]) for r in rows) / len(rows) for k in keys}


def judge_actg_vs_direct(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``actg_beats_dpsft``: MAUVE(ACTG) − MAUVE(direct DP-SFT) meets ``mauve_gain`` and TV(direct) − TV(ACTG)
    meets ``tv_gain``, both paired over seeds at the same (ε, δ)."""
    n = len(rows)
    j = all_of({
        "MAUVE gain": against_bar("MAUVE(ACTG) − MAUVE(DP-SFT)", _diff(rows, "mauve_actg", "mauve_direct"),
                                  bars["mauve_gain"], n=n, min_n=MIN_SEEDS),
        "TV gain": against_bar("TV(DP-SFT) − TV(ACTG)", _diff(rows, "tv_direct", "tv_actg"), bars["tv_gain"],
                               n=n, min_n=MIN_SEEDS)}, what="bars")
    return Judgement(j.verdict, j.reason, {**j.measured, "means": _means(
        rows, ("mauve_actg", "mauve_direct", "tv_actg", "tv_direct"))})


def judge_arl(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``arl_control``: control(ARL) − control(ACTG) meets ``control_gain`` and MAUVE(ARL)/MAUVE(ACTG) meets
    ``mauve_kept``."""
    n = len(rows)
    j = all_of({
        "control gain": against_bar("control(ARL) − control(ACTG)", _diff(rows, "control_arl", "control_actg"),
                                    bars["control_gain"], n=n, min_n=MIN_SEEDS),
        "MAUVE kept": against_bar("MAUVE(ARL) / MAUVE(ACTG)", _ratio(rows, "mauve_arl", "mauve_actg"),
                                  bars["mauve_kept"], n=n, min_n=MIN_SEEDS)}, what="bars")
    return Judgement(j.verdict, j.reason, {**j.measured, "means": _means(
        rows, ("control_actg", "control_arl", "mauve_actg", "mauve_arl"))})


def judge_rl_only(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``rl_reward_hacking``: RL without the anchor raises control (``control_gain_rl``), MAUVE(RL)/MAUVE(ACTG)
    meets ``mauve_lost`` (a loss of at least the bar's share), and the anchor is what prevents the loss:
    MAUVE(ARL) − MAUVE(RL without anchor) meets ``anchor_effect``."""
    n = len(rows)
    j = all_of({
        "control gain": against_bar("control(RL) − control(ACTG)", _diff(rows, "control_rl_only", "control_actg"),
                                    bars["control_gain_rl"], n=n, min_n=MIN_SEEDS),
        "MAUVE lost": against_bar("MAUVE(RL) / MAUVE(ACTG)", _ratio(rows, "mauve_rl_only", "mauve_actg"),
                                  bars["mauve_lost"], n=n, min_n=MIN_SEEDS),
        "anchor effect": against_bar("MAUVE(ARL) − MAUVE(RL)", _diff(rows, "mauve_arl", "mauve_rl_only"),
                                     bars["anchor_effect"], n=n, min_n=MIN_SEEDS)}, what="bars")
    return Judgement(j.verdict, j.reason, {**j.measured, "means": _means(
        rows, ("control_actg", "control_rl_only", "mauve_actg", "mauve_rl_only", "mauve_arl"))})


def judge_accounting(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``privacy_accounting``: for every setting, the calibrated composed RDP ε meets ``target`` (as a ratio to
    the target ε), the PLD accountant's ε is not above the RDP accountant's on the same events (MST's Gaussian
    rounds and DP-SGD, on which PLD is tight: ``pld_over_rdp``), opacus' RDP (with MST's closed-form curve α·ρ)
    agrees with dp-accounting's on the composed pipeline and on the DP-SGD stage alone (``opacus_agreement``), and
    the PLD accountant reproduces the exact Gaussian-mechanism ε of MST's two Gaussian rounds (``gaussian_exact``)."""
    parts: dict[str, Judgement] = {}
    for r in rows:
        tag = f"q={r['q']:g} T={r['steps']}"
        parts[f"{tag} ε/target"] = against_bar("RDP ε / target ε", r["eps_rdp"] / r["epsilon"], bars["target"])
        parts[f"{tag} PLD/RDP"] = against_bar("PLD ε / RDP ε (MST's Gaussian rounds + DP-SGD)",
                                              r["eps_pld_no_select"] / r["eps_rdp_no_select"], bars["pld_over_rdp"])
        parts[f"{tag} opacus"] = against_bar("|ε_opacus / ε_dp-accounting − 1| (composed pipeline)",
                                             abs(r["eps_opacus"] / r["eps_rdp"] - 1.0), bars["opacus_agreement"])
        parts[f"{tag} opacus stage 2"] = against_bar("|ε_opacus / ε_dp-accounting − 1| (DP-SGD stage)",
                                             abs(r["eps_opacus_stage2"] / r["eps_rdp_stage2"] - 1.0),
                                             bars["opacus_agreement"])
        parts[f"{tag} Gaussian"] = against_bar("|ε_PLD / ε_exact − 1| (stage-1 Gaussian)",
                                               abs(r["eps_pld_stage1"] / r["eps_exact_stage1"] - 1.0),
                                               bars["gaussian_exact"])
    return all_of(parts, what="accounting checks")


RULES = {"actg_beats_dpsft": judge_actg_vs_direct, "arl_control": judge_arl, "rl_reward_hacking": judge_rl_only,
         "privacy_accounting": judge_accounting}
UNJUDGED: dict[str, str] = {}
