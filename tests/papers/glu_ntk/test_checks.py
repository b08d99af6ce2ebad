"""The [P21] checks of the run group ``digits``: faster_convergence is judged on the digits runs it shares with
gap_not_reduced, and reports the linearised steps (own and shared step size) as findings."""

from __future__ import annotations

from icml26 import registry
from icml26.claims import Context, Memo
from icml26.papers.glu_ntk._checks_spectrum import check_faster_convergence
from icml26.papers.glu_ntk._checks_training import check_gap_not_reduced
from icml26.papers.glu_ntk.claims import FasterConfig, GapConfig, SpectrumConfig

BARS = {c.id: c.bar_map for c in registry.get_paper("glu_ntk").claims}
DIGITS = GapConfig(width=32, activations=("relu",), epochs=4, n_max=200, train_loss_mark=1.5)
SPECTRUM = SpectrumConfig(n=12, d=6, widths=(60,), activations=("relu",))


def test_faster_convergence_is_judged_on_the_shared_digits_runs():
    memo, seeds = Memo(), (0, 1, 2)
    res = check_faster_convergence(FasterConfig(digits=DIGITS, spectrum=SPECTRUM),
                                   Context(seeds=seeds, bars=BARS["faster_convergence"], memo=memo))
    assert "GLU fewer epochs" in res.reason and "epochs to the mark non-GLU / GLU" in res.reason
    assert [r["seed"] for r in res.rows] == [0, 1, 2] and {"epochs_non", "epochs_glu"} <= set(res.rows[0])
    assert res.measured["runs"] == 3 and "epochs_ratio" in res.measured
    own, shared = sorted(res.findings)
    assert "follows from κ" in own and "(ours)" in shared
    assert set(res.measured["linearized_own_eta"]["by_pair"]) == {"relu/reglu"}
    assert len(memo) == 2  # the digits runs and the NTK probe
    check_gap_not_reduced(DIGITS, Context(seeds=seeds, bars=BARS["gap_not_reduced"], memo=memo))
    assert len(memo) == 2  # gap_not_reduced reused the digits runs


def test_the_two_claims_of_the_digits_group_use_one_config_and_seed_count():
    claims = registry.load_claims("glu_ntk")
    for budget in ("smoke", "small"):
        faster, gap = claims["faster_convergence"].budgets[budget], claims["gap_not_reduced"].budgets[budget]
        assert faster.config.digits == gap.config and faster.seeds == gap.seeds
    specs = {c.id: c for c in registry.get_paper("glu_ntk").claims}
    assert specs["faster_convergence"].group == specs["gap_not_reduced"].group == "digits"
