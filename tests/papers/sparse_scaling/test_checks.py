"""The [P37] checks end to end on the pure-function claims, and the model-free summaries of the training claim."""

import pytest

from icml26 import registry
from icml26.claims import Context, Verdict
from icml26.papers.sparse_scaling._checks_training import gain_kept, gaps
from icml26.papers.sparse_scaling.claims import CLAIMS

BARS = {c.id: c.bar_map for c in registry.get_paper("sparse_scaling").claims}
BY_ID = {c.id: c for c in CLAIMS}


def _run(cid: str, budget: str):
    return BY_ID[cid].check(BY_ID[cid].budgets[budget].config, Context(seeds=(0,), budget=budget, bars=BARS[cid]))


def test_law_values_check_reproduces_every_quoted_number() -> None:
    r = _run("law_values", "small")
    assert r.verdict is Verdict.HOLDS and r.measured["n_quoted"] == 23 and not r.measured["not_reproduced"]
    assert r.figures and "R² 0.9136" in next(iter(r.findings.values()))


def test_optimal_sparsity_check_reports_both_slices() -> None:
    r = _run("loss_optimal_sparsity", "smoke")
    judged = [row for row in r.rows if row.get("judged")]
    notes = [row for row in r.rows if row["slice"].endswith("(notes)")]
    assert r.verdict is Verdict.HOLDS and len(judged) == 3 and all(0.44 < row["sparsity"] < 0.45 for row in judged)
    assert len(notes) == 1 and 0.24 < notes[0]["sparsity"] < 0.27 and "the notes' slice" in r.findings


def _curves():
    rows = []
    for seed in (0, 1):
        for d, gap in ((1.0, 0.04), (0.5, 0.02)):
            for e, fresh in ((1, 2.8), (4, 2.1), (16, 1.96)):
                for kind, loss in (("fresh", fresh), ("repeated", fresh + gap * (e > 1) * (e / 16))):
                    rows.append({"seed": seed, "density": d, "kind": kind, "epochs": e, "val_loss": loss})
    return rows


def test_model_free_gap_and_gain_kept() -> None:
    c = _curves()
    assert gaps(c, 1.0)[16] == pytest.approx([0.04, 0.04]) and gaps(c, 1.0)[1] == [0.0, 0.0]
    assert gain_kept(c, 1.0) == pytest.approx((2.8 - 2.0) / (2.8 - 1.96))
    assert gain_kept(c, 0.5) > gain_kept(c, 1.0)
