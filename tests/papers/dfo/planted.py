"""Planted rows on both sides of each [P14] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

INF = float("inf")


def res_row(r_dfo, *, r_trunc=1e-6, r_tik=1e-5, r_trunc_tik=1e-6, gap=0.5, f_norm=1.0, regime="near_duplicate",
            seed=0, tol=1e-4) -> dict:
    return {"problem": "advection", "regime": regime, "seed": seed, "tol": tol, "r_dfo": r_dfo, "r_trunc": r_trunc,
            "r_min": 1e-15, "f_norm": f_norm, "r_tikhonov": r_tik, "r_trunc_tik": r_trunc_tik, "r_min_tik": 1e-15,
            "f_norm_tik": f_norm, "tik_gap": gap, "r_tsvd": r_trunc}


def res_rows(dfo: list[float], tik: list[float], gap: float = 0.5) -> list[dict]:
    return [res_row(d, r_tik=t, gap=gap, seed=i) for i, (d, t) in enumerate(zip(dfo, tik))]


def tv_rows(ratios: dict[str, list[float]]) -> list[dict]:
    """``ratios[problem]``: TV(TSVD) per cell, with TV(DFO) = 1."""
    return [{"problem": p, "regime": "duplicated", "seed": s, "tol": 1e-4, "tv_tsvd": r, "tv_dfo": 1.0,
             "tv_tikhonov": 1.5} for p, rs in ratios.items() for s, r in enumerate(rs)]


def rob_rows(cells: list[tuple[float, float, float]]) -> list[dict]:
    """``cells``: (err_dfo, err_tsvd, err_lstsq) per cell."""
    return [{"problem": "allen_cahn", "regime": "vanishing", "seed": s, "tol": 1e-4, "err_dfo": d, "err_tsvd": t,
             "err_tikhonov": t, "err_lstsq": ls} for s, (d, t, ls) in enumerate(cells)]


AT = 1.005e-6  # within 1 % of the truncated minimum 1e-6
WORSE, BLOWN, TIE = (1e-3, 1e-3, 5e-3), (1e-3, 1e-3, INF), (1e-3, 1e-3, 1e-3)

PLANTED = {
    "residual_minimisation": Planted(
        holds={"rows": res_rows([AT, AT, AT], [1e-5, 1e-5, 1.0e-6])},
        fails={"rows": res_rows([AT, 1.02e-6, AT], [1e-5, 1e-5, 1e-5])},
        budget_variants=((
            {"rows": res_rows([AT] * 24, [1e-5] * 13 + [1e-6] * 11)},
            {"rows": res_rows([AT] * 24, [1e-5] * 12 + [1e-6] * 12)}),),
    ),
    "smooth_velocities": Planted(
        holds={"rows": tv_rows({"advection": [100.0, 120.0, 110.0], "allen_cahn": [30.0, 40.0, 35.0]})},
        fails={"rows": tv_rows({"advection": [100.0, 120.0, 110.0], "allen_cahn": [6.0, 7.0, 5.0]})},
        budget_variants=((
            {"rows": tv_rows({"advection": [100.0, 120.0, 110.0] * 4, "allen_cahn": [30.0, 40.0, 35.0] * 4})},
            {"rows": tv_rows({"advection": [100.0, 120.0, 110.0] * 4, "allen_cahn": [6.0, 7.0, 5.0] * 4})}),),
    ),
    "singular_robustness": Planted(
        holds={"rows": rob_rows([WORSE, BLOWN, TIE])},
        fails={"rows": rob_rows([WORSE, BLOWN, TIE, TIE])},
        budget_variants=((
            {"rows": rob_rows([WORSE, BLOWN, TIE] * 12)},
            {"rows": rob_rows([WORSE, TIE, TIE] * 12)}),),
    ),
}
