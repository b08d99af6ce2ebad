"""Verdict rules of the [P04] claims: pure functions of the measured rows, built from :mod:`icml26.verdicts`.

Every rule takes the claim's declared bars (``paper.toml``) by name and returns one :class:`~icml26.verdicts.Judgement`.
A *sensitivity* part (a control that must move, a cross-check that must agree) that misses its bar makes the claim
``inconclusive``, never ``fails``: it says the test could not see the effect, not that the paper is wrong.

- ``group_invariance``: rows ``{"kind": "law" | "control", "rel_change", "param_change"}``; the symmetries' largest
  relative logit change meets ``invariance``; controls meet ``control_change``, the weights moved by ``param_move``.
- ``laws_orthogonal``: rows ``{"kind": "law" | "control", "rate"}``; the laws' largest rate meets ``law_rate``, the
  controls' smallest meets ``control_rate``.
- ``sgd_drift_scaling``: rows ``{"kind": "law:<k>" | "control:<k>", "linear", "tau_slope", "k_slope", "drift"}``; per law
  kind the bootstrap CIs of the τ-slope and the k-slope lie in ``law_tau_slope`` / ``law_k_slope``, per control kind
  the τ-slope in ``control_tau_slope``; the linear router law's drift meets ``linear_law_drift``.
- ``llama_invariance_and_laws``: ``invariance`` rows as for ``group_invariance``, ``rates`` rows as for
  ``laws_orthogonal`` and ``drift`` rows as for ``sgd_drift_scaling`` (one per layer and kind), measured on a
  transformers Llama; every part must hold.
- ``gelu_silu_no_law``: rows ``{"activation", "corank", "expected", "min_sv_ratio"}``; the GELU/SiLU Jacobians' smallest
  σ/σ_max meets ``full_rank_margin`` (fails at or below ``rank_tol``), the controls' co-ranks their closed forms.
- ``sigmoid_gating_law``: the exact router-sum rate meets ``router_sum_rate`` (= 0); the softmax control and the
  float64 cross-check must agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, share

__all__ = ["RULES", "SMOOTH", "judge_corank", "judge_drift", "judge_gating", "judge_invariance", "judge_llama",
           "judge_orthogonal"]

#: the activations of Thm 4.1 (no law); the others in a co-rank table are controls with known co-ranks
SMOOTH = ("gelu", "silu")

Row = Mapping[str, Any]


def _sensitivity(j: Judgement) -> Judgement:
    """A sensitivity part: missing its bar means the test is blind there (``inconclusive``), not that a law broke."""
    if j.verdict is Verdict.FAILS:
        return Judgement(Verdict.INCONCLUSIVE, f"the test is insensitive here: {j.reason}", j.measured, j.timings)
    return j


def _split(rows: Sequence[Row], what: str) -> tuple[list[Row], list[Row]]:
    laws = [r for r in rows if r["kind"] == "law"]
    controls = [r for r in rows if r["kind"] == "control"]
    if not laws or not controls:
        raise ValueError(f"{what} needs law rows and control rows, got {len(laws)} and {len(controls)}")
    return laws, controls


def judge_invariance(rows: Sequence[Row], *, bars: Mapping[str, Bar]) -> Judgement:
    """``group_invariance`` (Thms 4.2-4.6): every group element leaves the logits unchanged; the test is sensitive."""
    laws, controls = _split(rows, "group_invariance")
    return all_of({
        "symmetries": against_bar("max relative Δlogits of the group actions", max(r["rel_change"] for r in laws),
                                  bars["invariance"], n=len(laws)),
        "non-symmetries": _sensitivity(against_bar(
            "min relative Δlogits of the non-symmetries", min(r["rel_change"] for r in controls),
            bars["control_change"], n=len(controls))),
        "weights moved": _sensitivity(against_bar(
            "min max |Δθ| of the group actions", min(r["param_change"] for r in laws), bars["param_move"])),
    })


def judge_orthogonal(rows: Sequence[Row], *, bars: Mapping[str, Bar]) -> Judgement:
    """``laws_orthogonal`` (Sec. 3): every law's rate along −∇L is zero; every look-alike control's is not."""
    laws, controls = _split(rows, "laws_orthogonal")
    return all_of({
        "laws": against_bar("max law rate", max(r["rate"] for r in laws), bars["law_rate"], n=len(laws)),
        "controls": _sensitivity(against_bar("min control rate", min(r["rate"] for r in controls),
                                             bars["control_rate"], n=len(controls))),
    })


def _slope(kind: str, key: str, rows: Sequence[Row], bar: Bar) -> Judgement:
    vals = [float(r[key]) for r in rows]
    est = bootstrap_ci(vals, seed=0)
    what = "τ-slope" if key == "tau_slope" else "k-slope"
    return against_bar(f"{kind} {what}", est, bar, n=len(vals), min_n=MIN_SEEDS)


def judge_drift(rows: Sequence[Row], *, bars: Mapping[str, Bar]) -> Judgement:
    """``sgd_drift_scaling`` (Fig. 2): laws drift O(τ²k) (slope 2 in τ, 1 in k), controls O(τ) (slope 1 in τ)."""
    sloped = [r for r in rows if not r["linear"]]
    kinds = sorted({r["kind"] for r in sloped})
    if not any(k.startswith("law:") for k in kinds):
        return Judgement(Verdict.INCONCLUSIVE, "no conservation law with a measurable drift in the rows")
    parts: dict[str, Judgement] = {}
    for kind in kinds:
        mine = [r for r in sloped if r["kind"] == kind]
        if kind.startswith("law:"):
            parts[f"{kind} τ"] = _slope(kind, "tau_slope", mine, bars["law_tau_slope"])
            parts[f"{kind} k"] = _slope(kind, "k_slope", mine, bars["law_k_slope"])
        else:
            parts[f"{kind} τ"] = _sensitivity(_slope(kind, "tau_slope", mine, bars["control_tau_slope"]))
    linear = [r for r in rows if r["linear"]]
    if linear:
        parts["linear router law"] = against_bar("max drift of the linear router law",
                                                 max(max(r["drift"]) for r in linear), bars["linear_law_drift"],
                                                 n=len(linear))
    return all_of(parts, what="slopes and drifts")


def judge_corank(rows: Sequence[Row], *, bars: Mapping[str, Bar]) -> Judgement:
    """``gelu_silu_no_law`` (Thm 4.1): the GELU/SiLU per-sample Jacobians have full column rank (no law), and the rank
    test finds the known co-ranks of the ReLU, SwiGLU and linear controls."""
    smooth = [r for r in rows if r["activation"] in SMOOTH]
    controls = [r for r in rows if r["activation"] not in SMOOTH]
    if not smooth or not controls:
        raise ValueError(f"gelu_silu_no_law needs GELU/SiLU rows and control rows, got {len(smooth)}, {len(controls)}")
    margin = min(float(r["min_sv_ratio"]) for r in smooth)
    matched = sum(int(r["corank"]) == int(r["expected"]) for r in controls)
    return all_of({
        "GELU/SiLU full rank": against_bar("smallest σ/σ_max of the GELU/SiLU Jacobians", margin,
                                           bars["full_rank_margin"], n=len(smooth), fail_bar=bars["rank_tol"]),
        "controls": _sensitivity(share("control co-ranks equal to their closed form", matched, len(controls),
                                       bars["controls_match"])),
    })


def judge_gating(*, exact_rate: Sequence[float], softmax_rate: Sequence[float], float64_rate: Sequence[float],
                 bars: Mapping[str, Bar]) -> Judgement:
    """``sigmoid_gating_law`` (Thm 4.7): the exact router-sum rate under normalised-sigmoid gating is 0.

    Each argument is the rate vector d/dt Σ_e W_gate[e, :] on one instance: ``exact_rate`` (normalised-sigmoid gating)
    and ``softmax_rate`` computed exactly, ``float64_rate`` the sigmoid-gated one through float64 torch modules.
    """
    if not (len(exact_rate) == len(softmax_rate) == len(float64_rate) > 0):
        raise ValueError("the three rate vectors must have the same, non-zero length")
    gap = max(abs(float(f) - float(e)) for f, e in zip(float64_rate, exact_rate))
    return all_of({
        "normalised-sigmoid gating": against_bar("max |d/dt Σ_e W_gate[e,:]| (exact)",
                                                 max(abs(float(e)) for e in exact_rate), bars["router_sum_rate"]),
        "softmax control": _sensitivity(against_bar("max |d/dt Σ_e W_gate[e,:]| under softmax (exact)",
                                                    max(abs(float(e)) for e in softmax_rate), bars["softmax_rate"])),
        "float64 cross-check": _sensitivity(against_bar("max |float64 − exact|", gap, bars["float64_agreement"])),
    })


def judge_llama(*, invariance: Sequence[Row], rates: Sequence[Row], drift: Sequence[Row], bars: Mapping[str, Bar]
                ) -> Judgement:
    """``llama_invariance_and_laws`` (Thms 4.2, 4.4 and Fig. 2 on a Llama): the group keeps the logits, the laws are
    orthogonal to ∇L and drift O(τ²k) under GD while the non-laws drift O(τ), each with its sensitivity guards (the
    bars of ``group_invariance``, ``laws_orthogonal`` and ``sgd_drift_scaling``)."""
    return all_of({"group invariance": judge_invariance(invariance, bars=bars),
                   "laws orthogonal": judge_orthogonal(rates, bars=bars),
                   "GD drift": judge_drift(drift, bars=bars)}, what="invariance, rates and drift")


RULES = {
    "group_invariance": judge_invariance,
    "laws_orthogonal": judge_orthogonal,
    "sgd_drift_scaling": judge_drift,
    "llama_invariance_and_laws": judge_llama,
    "gelu_silu_no_law": judge_corank,
    "sigmoid_gating_law": judge_gating,
}
