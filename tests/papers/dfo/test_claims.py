"""The smoke claims of P14 (dfo) run and are deterministic."""

import pytest

from icml26.claims import Context
from icml26.papers.dfo.claims import CLAIMS


def test_every_claim_has_smoke_and_small():
    assert {c.id for c in CLAIMS} == {"residual_minimisation", "smooth_velocities", "singular_robustness"}
    assert all({"smoke", "small"} <= set(c.budgets) for c in CLAIMS)


@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.id == "smooth_velocities"], ids=lambda c: c.id)
def test_smoke_claim_deterministic(claim):
    # the conformance test runs every smoke claim twice; here only the cheapest one, to keep the suite short
    b = claim.budgets["smoke"]
    r1 = claim.check(b.config, Context(seeds=(0,), budget="smoke"))
    r2 = claim.check(b.config, Context(seeds=(0,), budget="smoke"))
    assert r1.measured == r2.measured
    assert r1.verdict.value in {"holds", "fails", "inconclusive"}
    assert r1.figures
