"""The verdict rules of the [P04] claim checks, as pure functions of the measured numbers (so that each rule can be
tested on planted inputs). Each returns ``(verdict, why)``; the bars are fixed in the configs, not tuned to results."""

from __future__ import annotations

from collections.abc import Mapping

from icml26.claims import Verdict

__all__ = [
    "band_status",
    "corank_verdict",
    "drift_verdict",
    "gating_verdict",
    "invariance_verdict",
    "orthogonal_verdict",
    "upper_status",
]


MIN_ROWS = 3  # a slope status needs at least this many independent rows: fewer give a CI without spread


def band_status(lo: float, est: float, hi: float, band: tuple[float, float], *, n: int = MIN_ROWS) -> str:
    """``ok``: the CI ``[lo, hi]`` lies inside ``band``; ``out``: it lies wholly outside; else ``unsure`` (also
    when fewer than :data:`MIN_ROWS` rows gave the CI). ``est`` is the point estimate (reported, not decisive)."""
    del est
    if n < MIN_ROWS:
        return "unsure"
    if band[0] <= lo and hi <= band[1]:
        return "ok"
    return "out" if hi < band[0] or lo > band[1] else "unsure"


def upper_status(lo: float, est: float, hi: float, bar: float, *, n: int = MIN_ROWS) -> str:
    """One-sided version of :func:`band_status` for an upper bound ``<= bar``."""
    del est
    if n < MIN_ROWS:
        return "unsure"
    if hi <= bar:
        return "ok"
    return "out" if lo > bar else "unsure"


def invariance_verdict(*, worst: float, least_ctrl: float, min_move: float, bar: float,
                       ctrl_floor: float = 1e-6, move_floor: float = 1e-3) -> tuple[Verdict, str]:
    """Thms 4.2-4.6: holds iff every group action changes the logits by < ``bar`` (relative), provided the test is
    sensitive: each non-symmetry control changes them by >= ``ctrl_floor`` and each action moves the weights by
    >= ``move_floor``."""
    if least_ctrl < ctrl_floor or min_move < move_floor:
        return Verdict.INCONCLUSIVE, "the test is insensitive (a control left the function unchanged)"
    if worst < bar:
        return Verdict.HOLDS, "every group action left the logits unchanged"
    return Verdict.FAILS, "a group action changed the logits"


def orthogonal_verdict(*, law_max: float, ctrl_min: float, law_bar: float, control_bar: float) -> tuple[Verdict, str]:
    """Sec. 3: holds iff every law's normalised rate is < ``law_bar`` and every control's > ``control_bar``; a law at
    or above its bar fails; a control below its bar (insensitive test) is inconclusive."""
    if law_max >= law_bar:
        return Verdict.FAILS, "a law has a nonzero rate along gradient flow"
    if ctrl_min > control_bar:
        return Verdict.HOLDS, "every law is orthogonal to the loss gradient; every control is not"
    return Verdict.INCONCLUSIVE, "a control also looked conserved (the test is insensitive there)"


def drift_verdict(*, tau_slopes: Mapping[str, Mapping], k_slopes: Mapping[str, Mapping], linear_max: float,
                  linear_bar: float) -> tuple[Verdict, str]:
    """Fig. 2: laws drift ``O(τ²k)``, controls ``O(τ)``. ``tau_slopes[kind]["status"]`` is the band status of the
    τ-slope (laws ~2, controls ~1); ``k_slopes[kind]["status"]`` the upper-bound status of a law's k-slope (``<= 1``
    plus a tolerance: ``O(τ²k)`` bounds the growth in k, so sub-linear growth is consistent with it).

    Fails if a law's τ-slope or k-slope is out, or the linear router law drifts >= ``linear_bar``; inconclusive if a
    control's τ-slope is out or any interval straddles its bar; holds otherwise."""
    bad_tau = [k for k, s in tau_slopes.items() if k.startswith("law") and s["status"] == "out"]
    bad_k = [k for k, s in k_slopes.items() if s["status"] == "out"]
    bad_ctrl = [k for k, s in tau_slopes.items() if k.startswith("control") and s["status"] == "out"]
    unsure = [f"tau:{k}" for k, s in tau_slopes.items() if s["status"] == "unsure"]
    unsure += [f"k:{k}" for k, s in k_slopes.items() if s["status"] == "unsure"]
    if not any(k.startswith("law") for k in tau_slopes) or set(k_slopes) != {k for k in tau_slopes if k.startswith("law")}:
        return Verdict.INCONCLUSIVE, "some law kind lacks a τ-slope or a k-slope"
    if bad_tau or bad_k or linear_max >= linear_bar:
        return Verdict.FAILS, (f"law τ-slopes out of band: {bad_tau or 'none'}; law k-slopes above the bar: "
                               f"{bad_k or 'none'}; linear-law drift {linear_max:.1e}")
    if bad_ctrl or unsure:
        return Verdict.INCONCLUSIVE, (f"controls outside their band: {bad_ctrl or 'none'}; intervals straddling a "
                                      f"bar: {unsure or 'none'}")
    return Verdict.HOLDS, ("every law's drift slope lies in the O(τ²) band and grows at most linearly in k; every "
                           "control's lies in the O(τ) band")


def corank_verdict(*, smooth_max: int, smooth_margin: float, ctrl_ok: bool, margin: float) -> tuple[Verdict, str]:
    """Thm 4.1: holds iff every GELU/SiLU co-rank is 0 with the smallest kept singular-value ratio > ``margin``;
    a positive co-rank fails; a control off its closed form, or a thin margin, is inconclusive."""
    if not ctrl_ok:
        return Verdict.INCONCLUSIVE, "a control's co-rank differs from its closed form (rank test unreliable)"
    if smooth_max == 0 and smooth_margin > margin:
        return Verdict.HOLDS, "every GELU/SiLU Jacobian has full column rank"
    if smooth_max == 0:
        return Verdict.INCONCLUSIVE, "full rank, but the smallest singular value is near the threshold"
    return Verdict.FAILS, "a GELU/SiLU Jacobian is rank-deficient (a candidate law exists)"


def gating_verdict(*, agree: bool, softmax_moved: bool, nonzero: bool) -> tuple[Verdict, str]:
    """Thm 4.7: fails iff the exact router-sum rate on the counterexample is nonzero (``nonzero``), provided the exact
    and float64 computations agree and the softmax control stays exactly 0; holds iff that rate is exactly 0."""
    if not agree or softmax_moved:
        return Verdict.INCONCLUSIVE, "exact and float64 computations disagree (or the softmax control moved)"
    if nonzero:
        return Verdict.FAILS, "the router-row sum is NOT conserved under normalised-sigmoid gating"
    return Verdict.HOLDS, "the router-row sum is conserved on the counterexample"
