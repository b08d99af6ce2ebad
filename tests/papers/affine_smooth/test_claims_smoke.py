"""The smoke claims of P26 run, are deterministic, and come out as measured at this budget."""

from __future__ import annotations

import pytest

from icml26.claims import Context
from icml26.papers.affine_smooth.claims import CLAIMS


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_smoke_claim_holds(claim):
    b = claim.budgets["smoke"]
    r = claim.check(b.config, Context(seeds=tuple(range(b.seeds)), budget="smoke"))
    assert r.verdict.value == "holds", r.reason
    assert r.figures and r.measured
