"""The verdict rules of the claim checks of [P32], as pure functions of confidence intervals (tested on planted input).

Each rule returns ``(verdict, reason)``; the reason names the branch, the caller appends the numbers. The bars are
fixed here, before any run: a difference counts only when its 95% bootstrap CI excludes 0.
"""

from __future__ import annotations

from collections.abc import Sequence

from icml26.claims import Verdict
from icml26.common.stats import Estimate

__all__ = ["MIN_SEEDS", "ci_sign", "collapse_rule", "improves_all_rule", "predicted_signs_rule"]

#: DESIGN.md: stochastic claims use >= 3 seeds; fewer give no CI over seeds.
MIN_SEEDS = 3


def ci_sign(est: Estimate) -> int:
    """+1 if the CI lies above 0, −1 if below, 0 if it contains 0."""
    return 1 if est.lo > 0 else (-1 if est.hi < 0 else 0)


def collapse_rule(d_distinct: Estimate, d_passk: Estimate, *, n_seeds: int) -> tuple[Verdict, str]:
    """``vanilla_collapse``: vanilla GRPO − base model, CIs over seeds, on held-out prompts.

    holds: fewer distinct correct answers (CI < 0) *and* a lower pass@k (CI < 0) than the base model;
    fails: more distinct correct answers or a higher pass@k (either CI > 0): the claim says both fall;
    inconclusive: fewer than :data:`MIN_SEEDS` seeds, or anything else (a CI straddling 0).
    """
    if n_seeds < MIN_SEEDS:
        return Verdict.INCONCLUSIVE, f"{n_seeds} seed(s) < {MIN_SEEDS}: no CI over seeds at this budget"
    s_d, s_k = ci_sign(d_distinct), ci_sign(d_passk)
    if s_d == -1 and s_k == -1:
        return Verdict.HOLDS, "vanilla GRPO lowers both the distinct correct answers and pass@k below the base (CIs < 0)"
    if s_d == 1 or s_k == 1:
        return Verdict.FAILS, ("vanilla GRPO raises the number of distinct correct answers or pass@k above the base "
                               "(CI > 0)")
    return Verdict.INCONCLUSIVE, "the distinct-correct and pass@k changes are not both resolved below 0"


def improves_all_rule(diffs: Sequence[Estimate], *, n_seeds: int | None = None) -> tuple[Verdict, str]:
    """``ds_improves_both`` / ``countdown_ds``: every DS − vanilla difference must be above 0.

    holds: every CI > 0; fails: some CI < 0; inconclusive: otherwise, or (when ``n_seeds`` is given, i.e. the CIs are
    over seeds) fewer than :data:`MIN_SEEDS` seeds.
    """
    if not diffs:
        raise ValueError("diffs must be non-empty")
    if n_seeds is not None and n_seeds < MIN_SEEDS:
        return Verdict.INCONCLUSIVE, f"{n_seeds} seed(s) < {MIN_SEEDS}: no CI over seeds at this budget"
    signs = [ci_sign(d) for d in diffs]
    if all(s == 1 for s in signs):
        return Verdict.HOLDS, "every DS − vanilla difference has a CI above 0"
    if any(s == -1 for s in signs):
        return Verdict.FAILS, "DS is below vanilla (CI < 0) on at least one metric"
    return Verdict.INCONCLUSIVE, "some DS − vanilla differences straddle 0"


def predicted_signs_rule(outcomes: Sequence[tuple[int, Estimate]]) -> tuple[Verdict, str]:
    """``entropy_heuristics``: ``(predicted sign, CI)`` pairs. fails: some CI has the opposite sign; inconclusive:
    none contradicted but some CI contains 0; holds: every CI has the predicted sign."""
    if not outcomes:
        raise ValueError("outcomes must be non-empty")
    if any(w not in (-1, 1) for w, _ in outcomes):
        raise ValueError("predicted signs must be +1 or -1")
    signs = [(w, ci_sign(d)) for w, d in outcomes]
    wrong = sum(s == -w for w, s in signs)
    open_ = sum(s == 0 for _, s in signs)
    if wrong:
        return Verdict.FAILS, f"{wrong} of {len(signs)} predicted signs contradicted (CI of the opposite sign)"
    if open_:
        return Verdict.INCONCLUSIVE, f"{open_} of {len(signs)} predicted signs unresolved (CI contains 0)"
    return Verdict.HOLDS, f"all {len(signs)} predicted signs observed with CIs excluding 0"
