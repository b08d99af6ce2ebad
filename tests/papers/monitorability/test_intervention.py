"""The [P02] intervention estimator: hand-computed tables, recovery of planted rates, the cross-fit folds."""

import numpy as np
import pytest

from icml26.papers.monitorability import crossfit_folds, intervention_g_mean2, intervention_table
from icml26.papers.monitorability._intervention import rates_from_totals
from icml26.papers.monitorability._runs import planted_intervention
from icml26.papers.monitorability.claims import EstimatorConfig


def test_hand_computed_table_and_rates() -> None:
    # one prompt, 4 control samples (1 match, unflagged), 4 treated samples (3 matches, 2 flagged)
    pid = np.zeros(8, dtype=int)
    t = np.r_[np.zeros(4), np.ones(4)].astype(int)
    y = np.array([1, 0, 0, 0, 1, 1, 1, 0])
    f = np.array([0, 0, 0, 0, 1, 1, 0, 0])
    tab = intervention_table(pid, t, y, f, filter="none")
    assert tab.tolist() == [[4, 3, 2, 1.0, 4, 1, 0]]  # U = n_T y_C / n_C = 1
    r = rates_from_totals(tab.sum(axis=0))
    assert r["tnr"] == 1.0 and r["caused"] == 2.0 and r["effect"] == pytest.approx(2 / 3)
    assert r["tpr"] == pytest.approx(1.0) and r["g_mean2"] == pytest.approx(1.0)
    # a false positive in control: FPR 1, so the flag expected on the one uncaused treated match is removed
    f2 = f.copy()
    f2[0] = 1
    r2 = rates_from_totals(intervention_table(pid, t, y, f2, filter="none").sum(axis=0))
    assert r2["tnr"] == 0.0 and r2["tpr"] == pytest.approx((2 - 1) / 2) and r2["tpr_uncorrected"] == 1.0


def test_crossfit_folds_split_every_prompt_and_arm_in_half() -> None:
    pid = np.repeat(np.arange(5), 8)
    t = np.tile(np.r_[np.zeros(4), np.ones(4)], 5).astype(int)
    k = crossfit_folds(pid, t, seed=3)
    for p in range(5):
        for arm in (0, 1):
            assert k[(pid == p) & (t == arm)].sum() == 2
    assert not np.array_equal(k, crossfit_folds(pid, t, seed=4))


@pytest.mark.parametrize("filt", ["crossfit", "none"])
def test_recovers_planted_rates(filt: str) -> None:
    cfg = EstimatorConfig(prompts=3000, samples=8)
    tprs, tnrs = [], []
    for seed in range(3):
        est = intervention_g_mean2(*planted_intervention(cfg, seed), filter=filt, n_boot=50, seed=seed)
        tprs.append(est.tpr)
        tnrs.append(est.tnr)
    assert np.mean(tprs) == pytest.approx(0.8, abs=0.03) and np.mean(tnrs) == pytest.approx(0.9, abs=0.01)


def test_insample_filtering_is_biased_and_crossfit_is_not() -> None:
    cfg = EstimatorConfig(prompts=2000, samples=4)
    data = planted_intervention(cfg, 0)
    inside = intervention_g_mean2(*data, filter="insample", n_boot=20, seed=0)
    cross = [intervention_g_mean2(*planted_intervention(cfg, s), filter="crossfit", n_boot=20, seed=s).tpr
             for s in range(3)]
    assert inside.tpr < 0.7  # selecting prompts on their noisy effect overestimates it
    assert abs(np.mean(cross) - 0.8) < abs(inside.tpr - 0.8)


def test_bad_inputs() -> None:
    pid, t, y = np.zeros(4, dtype=int), np.array([0, 0, 1, 1]), np.array([1, 0, 1, 1])
    with pytest.raises(ValueError, match="folds"):
        intervention_table(pid, t, y, y, filter="crossfit")
    with pytest.raises(ValueError, match="same length"):
        intervention_table(pid[:3], t, y, y, filter="none")
