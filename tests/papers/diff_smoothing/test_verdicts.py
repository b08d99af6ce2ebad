"""The verdict rules of every claim on planted confidence intervals: each can return holds, fails and inconclusive."""

import pytest

from icml26.claims import Verdict
from icml26.common.stats import Estimate
from icml26.papers.diff_smoothing._verdicts import (
    collapse_rule,
    improves_all_rule,
    predicted_signs_rule,
)

UP = Estimate(0.3, 0.1, 0.5)  # CI above 0
DOWN = Estimate(-0.3, -0.5, -0.1)  # CI below 0
FLAT = Estimate(0.0, -0.2, 0.2)  # CI contains 0


@pytest.mark.parametrize(("distinct", "passk", "n", "want"), [
    (DOWN, DOWN, 5, Verdict.HOLDS),
    (UP, DOWN, 5, Verdict.FAILS),
    (UP, UP, 5, Verdict.FAILS),
    (DOWN, FLAT, 5, Verdict.INCONCLUSIVE),  # fewer distinct answers, coverage not lower: not a collapse yet
    (DOWN, UP, 5, Verdict.FAILS),  # fewer distinct answers but pass@k rises: not the claimed collapse
    (FLAT, DOWN, 5, Verdict.INCONCLUSIVE),
    (DOWN, DOWN, 2, Verdict.INCONCLUSIVE),  # too few seeds for a CI over seeds
])
def test_collapse_rule(distinct, passk, n, want):
    assert collapse_rule(distinct, passk, n_seeds=n)[0] is want


@pytest.mark.parametrize(("diffs", "n", "want"), [
    ([UP, UP], None, Verdict.HOLDS),
    ([UP, UP, UP, UP], 3, Verdict.HOLDS),
    ([UP, DOWN], None, Verdict.FAILS),
    ([FLAT, DOWN], 3, Verdict.FAILS),
    ([UP, FLAT], None, Verdict.INCONCLUSIVE),
    ([UP, UP], 1, Verdict.INCONCLUSIVE),
])
def test_improves_all_rule(diffs, n, want):
    """ds_improves_both (CIs over prompts, n=None) and countdown_ds (CIs over seeds)."""
    assert improves_all_rule(diffs, n_seeds=n)[0] is want


@pytest.mark.parametrize(("outcomes", "want"), [
    ([(1, UP), (-1, DOWN)], Verdict.HOLDS),
    ([(1, UP), (-1, UP)], Verdict.FAILS),
    ([(1, FLAT), (-1, UP)], Verdict.FAILS),
    ([(1, UP), (-1, FLAT)], Verdict.INCONCLUSIVE),
])
def test_predicted_signs_rule(outcomes, want):
    assert predicted_signs_rule(outcomes)[0] is want


def test_rules_reject_empty_or_bad_input():
    with pytest.raises(ValueError, match="diffs must be non-empty"):
        improves_all_rule([])
    with pytest.raises(ValueError, match="outcomes must be non-empty"):
        predicted_signs_rule([])
    with pytest.raises(ValueError, match="predicted signs must be"):
        predicted_signs_rule([(0, UP)])


def test_checks_use_the_rules_on_their_ci(monkeypatch):
    """The CountDown checks feed their CIs over seeds to the rules: a planted per-seed run decides the verdict."""
    import numpy as np

    from icml26.claims import Context
    from icml26.papers.diff_smoothing import _checks_countdown as cd
    from icml26.papers.diff_smoothing._checks_toy import ToyConfig

    def planted(drop):
        def one_seed(args):
            cfg, seed = args
            base = {"pass@1": [0.2], f"pass@{cfg.k}": [0.8], "distinct_correct": [2.0]}
            van = {"pass@1": [0.3], f"pass@{cfg.k}": [0.8 - drop + 0.01 * seed], "distinct_correct": [2.0 - drop]}
            ds = {k: [v[0] + 0.05] for k, v in van.items()}
            return {"seed": seed, "base": base, "vanilla": {**van, "train_reward": [0.1] * cfg.rl_steps},
                    "ds": {**ds, "train_reward": [0.1] * cfg.rl_steps}}
        return one_seed

    cfg = cd.CollapseConfig(countdown=cd.CountdownConfig(rl_steps=6, methods=("vanilla",)),
                            toy=ToyConfig(n_prompts=3, steps=2))
    ctx = Context(seeds=(0, 1, 2))
    monkeypatch.setattr(cd, "_one_seed", planted(0.5))
    assert cd.check_vanilla_collapse(cfg, ctx).verdict is Verdict.HOLDS
    monkeypatch.setattr(cd, "_one_seed", planted(-0.5))
    assert cd.check_vanilla_collapse(cfg, ctx).verdict is Verdict.FAILS
    monkeypatch.setattr(cd, "_one_seed", planted(0.0))  # distinct unchanged: CI is [0, 0]
    assert cd.check_vanilla_collapse(cfg, ctx).verdict is Verdict.INCONCLUSIVE
    res = cd.check_countdown(cd.CountdownConfig(rl_steps=6, methods=("vanilla", "ds")), ctx)
    assert res.verdict is Verdict.HOLDS and np.isclose(res.measured["ds_minus"]["ds-vanilla pass@1"][0], 0.05)
