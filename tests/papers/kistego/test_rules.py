"""[P22] verdict rules on planted rows: each part of each rule can fail on its own."""

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.kistego._rules import judge_extraction, judge_fidelity, judge_steganalysis
from support.planted import load_planted

P = load_planted("kistego")
extraction_rows, fidelity_rows, steg_rows = P.extraction_rows, P.fidelity_rows, P.steg_rows


def _bars(claim: str):
    return registry.get_paper("kistego").claim(claim).bar_map


def test_extraction_needs_a_keyed_baseline_that_works_with_its_key() -> None:
    bars = _bars("keyfree_extraction")
    assert judge_extraction(extraction_rows(1.0, 0.99, 0.71), bars=bars).verdict is Verdict.HOLDS
    # the baseline fails with a wrong key only because it fails with every key: the contrast is not shown
    broken = judge_extraction(extraction_rows(1.0, 0.99, 0.71, right=0.72), bars=bars)
    assert broken.verdict is Verdict.FAILS and "right-key" in broken.reason
    assert judge_extraction(extraction_rows(0.97, 0.99, 0.71), bars=bars).verdict is Verdict.FAILS
    assert judge_extraction(extraction_rows(1.0, 0.99, 0.71, seeds=2), bars=bars).verdict is Verdict.INCONCLUSIVE


def test_fidelity_and_steganalysis_parts() -> None:
    fb = _bars("posterior_fidelity")
    assert judge_fidelity(fidelity_rows(21.0, 0.55), bars=fb).verdict is Verdict.FAILS  # SSIM below the baseline
    sb = _bars("steganalysis_chance")
    assert judge_steganalysis(steg_rows(0.95, 0.5), bars=sb).verdict is Verdict.FAILS
    assert judge_steganalysis(steg_rows(0.5, 0.5, seeds=2), bars=sb).verdict is Verdict.INCONCLUSIVE


def test_steganalysis_is_judged_at_the_operating_point_only() -> None:
    sb = _bars("steganalysis_chance")
    weak = [{**r, "strength": 1.0, "operating": True} for r in steg_rows(0.5, 0.52)]
    strong = [{**r, "strength": 4.0, "operating": False} for r in steg_rows(1.0, 1.0)]
    assert judge_steganalysis(weak + strong, bars=sb).verdict is Verdict.HOLDS
    flipped = [{**r, "operating": not r["operating"]} for r in weak + strong]
    assert judge_steganalysis(flipped, bars=sb).verdict is Verdict.FAILS
