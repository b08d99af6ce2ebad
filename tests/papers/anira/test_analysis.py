"""[P23] analyses against hand values and numpy, and the figures the claims draw (depth against difficulty)."""

import numpy as np
import pytest

from icml26.harness import run_claim
from icml26.papers.anira import by_difficulty, depth_difficulty_rho, r_squared
from icml26.papers.anira._figures import extrapolation_figure, profile_figure, timing_figure


def test_spearman_by_hand():
    assert depth_difficulty_rho([1, 2, 3, 4], [0, 1, 2, 3]) == pytest.approx(1.0)
    assert depth_difficulty_rho([4, 3, 2, 1], [0, 1, 2, 3]) == pytest.approx(-1.0)
    # ranks (1, 2.5, 2.5, 4) against (1, 2, 3, 4): rho = cov / (sd sd) of the ranks
    r = np.array([1, 2.5, 2.5, 4])
    s = np.arange(1, 5.0)
    hand = np.corrcoef(r, s)[0, 1]
    assert depth_difficulty_rho([1, 2, 2, 3], [5, 6, 7, 8]) == pytest.approx(hand)
    assert depth_difficulty_rho([3, 3, 3], [0, 1, 2]) == 0.0  # a constant depth tracks nothing


def test_r_squared_against_numpy():
    g = np.random.default_rng(0)
    X = g.normal(size=(200, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.3 * g.normal(size=200) + 4.0
    A = np.column_stack([X, np.ones(200)])
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    hand = 1 - np.sum((y - A @ coef) ** 2) / np.sum((y - y.mean()) ** 2)
    assert r_squared(y, X) == pytest.approx(hand)
    assert r_squared(X @ np.array([1.0, 1, 1]), X) == pytest.approx(1.0)
    assert r_squared(np.full(200, 2.0), X) == 0.0
    with pytest.raises(ValueError, match="features"):
        r_squared(y, X[:10])


def test_by_difficulty():
    assert by_difficulty([1, 3, 2, 4], [0, 0, 1, 1]) == {0: 2.0, 1: 3.0}
    with pytest.raises(ValueError, match="integers"):
        by_difficulty([1.0, 2.0], [0.5, 1.0])


def _row(method, seed, shift):
    prof = {str(k): [1 + k * shift, 1 - 0.1 * k, 10.0] for k in range(4)}
    return {"task": "pointer", "method": method, "seed": seed, "id_profile": prof, "ood_profile": prof,
            "id_depth": 2.0, "ood_depth": 3.0, "id_accuracy": 0.9, "ood_accuracy": 0.4, "r2_static": 0.3,
            "r2_state": 0.6}


def test_figures_render_from_rows():
    rows = [_row(m, s, 0.5 + s) for m in ("anira_e", "anira_o_act", "fixed") for s in range(3)]
    fig = profile_figure(rows, "pointer", col=0, ylabel="depth", name="pointer_depth_vs_difficulty", caption="c")
    assert fig.name == "pointer_depth_vs_difficulty" and "ANIRA-E" in fig.svg and fig.png[:4] == b"\x89PNG"
    assert "ANIRA-O (ACT)" in extrapolation_figure(rows, "pointer").svg
    assert "static features" in timing_figure(rows, "pointer").svg


def test_smoke_claim_draws_depth_against_difficulty():
    rec = run_claim("anira", "depth_tracks_difficulty", budget="smoke", seed=0)
    assert rec.verdict == "inconclusive" and "only 1" in rec.reason  # one seed decides nothing
    names = {f["name"] for f in rec.figures}
    assert {"pointer_depth_vs_difficulty", "pointer_accuracy_vs_difficulty"} <= names


def test_matched_extrapolation_finding_and_rho_above_the_lowest_level():
    from icml26.papers.anira._checks import _hardest_trained
    from icml26.papers.anira._runs import _rho_above_lowest

    # ID levels 0..2; the longer inputs add levels 3 (10 tokens) and 4 (30 tokens): token-weighted means above 2
    prof_id = {"0": [1.0, 1.0, 50.0], "1": [2.0, 0.9, 30.0], "2": [3.0, 0.7, 20.0]}
    prof_ood = {**prof_id, "3": [4.0, 0.6, 10.0], "4": [6.0, 0.2, 30.0]}
    rows = [{"task": "pointer", "method": "anira_e", "seed": s, "id_profile": prof_id, "ood_profile": prof_ood}
            for s in range(2)]
    text = _hardest_trained(rows, "pointer", "anira_e")
    assert text == ("at difficulty 2 in distribution: depth 3.00, accuracy 70.0 %; above it on the longer inputs: "
                    "depth 5.50, accuracy 30.0 %")
    rows[1] = {**rows[1], "ood_profile": prof_id}
    assert "no longer-input tokens above difficulty 2" in _hardest_trained(rows, "pointer", "anira_e")
    # depth separates level 0 from the rest and is flat above it: a high rho overall, 0 above level 0
    res = {"depth": np.array([1.0, 1, 3, 3, 3, 3]), "difficulty": np.array([0, 0, 1, 1, 2, 2])}
    assert depth_difficulty_rho(res["depth"], res["difficulty"]) > 0.8
    assert _rho_above_lowest(res) == 0.0
    res["depth"] = np.array([1.0, 1, 2, 2, 3, 3])
    assert _rho_above_lowest(res) == pytest.approx(1.0)
