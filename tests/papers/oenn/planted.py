"""Planted rows on both sides of each [P12] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def commutant_rows(pairs, *, residual=1e-15, gap=1e14):
    """One row per (oracle, basis) pair; the basis rank equals its size."""
    return [{"case": f"case{i}", "gauge": bool(i % 2), "oracle": o, "basis": b, "basis_rank": b, "residual": residual,
             "oracle_gap": gap, "local_dim": 1} for i, (o, b) in enumerate(pairs)]


def equivariance_rows(local, control, *, cases=2):
    return [{"case": f"case{i}", "gauge": True, "model": m, "error": e, "group_trivial": False}
            for i in range(cases) for m, e in (("local", local), ("basis", local), ("control", control))]


def uat_rows(small, large, seeds=3, linear=0.9):
    """Width 0 is the best linear equivariant map (the validity guard's row)."""
    return [{"width": w, "seed": s, "test_nmse": e * (1 + 0.05 * s)}
            for s in range(seeds) for w, e in ((0, linear), (4, small), (16, (small + large) / 2), (32, large))]


def sbm_rows(sheaf, gcn, mlp, seeds=3, homophily=0.15):
    jitter = [0.0, 0.01, -0.01, 0.02, -0.02, 0.0]
    return [{"seed": s, "model": m, "test_acc": a + jitter[s % 6], "homophily": homophily}
            for s in range(seeds) for m, a in (("sheaf_oenn", sheaf), ("gcn", gcn), ("mlp", mlp))]


PLANTED = {
    "complete_characterization": Planted(
        holds={"rows": commutant_rows([(14, 14), (56, 56)])},
        fails={"rows": commutant_rows([(14, 14), (24, 20)])},
        budget_variants=((
            {"rows": commutant_rows([(14, 14), (56, 56), (15, 15), (200, 200)])},
            {"rows": commutant_rows([(14, 14), (56, 56), (15, 15), (200, 199)])}),),
    ),
    "exact_equivariance": Planted(
        holds={"rows": equivariance_rows(1e-15, 0.5)},
        fails={"rows": equivariance_rows(1e-6, 0.5)},
        budget_variants=((
            {"rows": equivariance_rows(1e-15, 0.5, cases=6)},
            {"rows": equivariance_rows(1e-15, 1e-9, cases=6)}),),
    ),
    "universal_approximation": Planted(
        holds={"rows": uat_rows(0.5, 0.05)},
        fails={"rows": uat_rows(0.5, 0.4)},
        budget_variants=(({"rows": uat_rows(0.5, 0.05, seeds=8)}, {"rows": uat_rows(0.5, 0.4, seeds=8)}),),
    ),
    "heterophilic_sbm": Planted(
        holds={"rows": sbm_rows(0.85, 0.75, 0.65)},
        fails={"rows": sbm_rows(0.70, 0.80, 0.65)},
        budget_variants=(({"rows": sbm_rows(0.85, 0.75, 0.65, seeds=6)},
                          {"rows": sbm_rows(0.70, 0.80, 0.65, seeds=6)}),),
    ),
}
