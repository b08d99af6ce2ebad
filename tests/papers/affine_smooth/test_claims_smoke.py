"""The smoke claims of P26 run, are deterministic, and come out as measured at this budget; planted configs fail."""

from __future__ import annotations

import dataclasses

import pytest

from icml26.claims import Context
from icml26.papers.affine_smooth.claims import (
    CLAIMS,
    check_adaptive_two_layer,
    check_sign_gd_softmax_pg,
)

SMOKE = {c.id: c.budgets["smoke"].config for c in CLAIMS}
CTX = Context(seeds=(0,), budget="smoke")


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_smoke_claim_holds(claim):
    b = claim.budgets["smoke"]
    r = claim.check(b.config, Context(seeds=tuple(range(b.seeds)), budget="smoke"))
    assert r.verdict.value == "holds", r.reason
    assert r.figures and r.measured


def test_adaptive_two_layer_fails_with_beta2_0999():
    """Pinning β2 = 0.999 (torch's default) instead of 0.9: the linear-rate bar is missed (notes: β2 ≲ 0.9)."""
    r = check_adaptive_two_layer(dataclasses.replace(SMOKE["adaptive_two_layer"], beta2=0.999), CTX)
    assert r.verdict.value == "fails", r.reason
    assert "rmsprop_b2_0.999" in r.reason and "adam_b2_0.999" in r.reason


def test_softmax_pg_fails_with_a_tiny_sign_step():
    """Sign GD on softmax PG decays at ≈ −2η per step: η = 1e-3 gives ≈ −2e-3 > −5e-3, so the rate bar fails."""
    r = check_sign_gd_softmax_pg(dataclasses.replace(SMOKE["sign_gd_softmax_pg"], sign_lr=1e-3), CTX)
    assert r.verdict.value == "fails", r.reason
    assert "sign-GD rate" in r.reason
