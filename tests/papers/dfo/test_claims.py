"""The [P14] claim table and the per-cell measurement the checks share."""

import numpy as np
import pytest

from icml26.claims import Context
from icml26.papers.dfo._checks import run_cell
from icml26.papers.dfo._experiments import make_setup, run_setup
from icml26.papers.dfo.claims import CLAIMS
from icml26.registry import get_paper


def test_every_claim_has_smoke_and_small():
    assert {c.id for c in CLAIMS} == {"residual_minimisation", "smooth_velocities", "singular_robustness"}
    assert all({"smoke", "small"} <= set(c.budgets) for c in CLAIMS)


def test_run_cell_summarises_each_trajectory():
    task = ("advection", "near_duplicate", 0, 64, 0.3, (("dfo", 1e-4), ("tikhonov", 1e-4), ("lstsq", 0.0)))
    out = run_cell(task)
    assert set(out) == {"dfo@0.0001", "tikhonov@0.0001", "lstsq@0"}
    tr, err = run_setup(make_setup("advection", "near_duplicate", seed=0, n_points=64, t_end=0.3), method="dfo",
                        tol=1e-4)
    d = out["dfo@0.0001"]
    assert d["error"] == err and d["tv"] == tr.total_variation and d["residual"] == pytest.approx(tr.residual.mean())
    assert 0.0 <= out["tikhonov@0.0001"]["filter_gap"] <= 1.0 and "filter_gap" not in d


def test_smooth_smoke_check_is_deterministic_and_draws():
    claim = next(c for c in CLAIMS if c.id == "smooth_velocities")
    bars = next(c for c in get_paper("dfo").claims if c.id == "smooth_velocities").bar_map
    b = claim.budgets["smoke"]
    r1 = claim.check(b.config, Context(seeds=(0,), budget="smoke", bars=bars))
    r2 = claim.check(b.config, Context(seeds=(0,), budget="smoke", bars=bars))
    assert r1.measured == r2.measured and r1.figures
    assert np.isfinite(r1.measured["tv_ratio_advection"]) and "smoother than TSVD (CI above 1)" in r1.findings
