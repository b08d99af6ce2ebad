"""Planted rows on both sides of each [P26] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

#: a linear sign-GD run against a 1/k GD run, as the sign rule reads them
LINEAR_VS_GD = {"sign_rate": -0.02, "sign_persistence": 1.0, "gd_loglog_slope": -1.0, "speedup_decades": 20.0}
#: sign GD sublinear (a 1/k curve): misses the rate, the persistence and the speed-up bars
SUBLINEAR_VS_GD = {"sign_rate": -4e-4, "sign_persistence": 0.6, "gd_loglog_slope": -1.0, "speedup_decades": 0.0}
PINNED = ("rmsprop_b2_0.9", "adam_b2_0.9")
SLOW, FAST = ("gd", "heavy_ball", "adagrad", "amsgrad"), ("rmsprop", "adam")


def sign_rows(n_seeds: int, bad_seed: int | None = None) -> list[dict]:
    """``n_seeds`` linear rows; ``bad_seed`` (if any) sublinear."""
    return [{"seed": s, **(SUBLINEAR_VS_GD if s == bad_seed else LINEAR_VS_GD)} for s in range(n_seeds)]


def adaptive_rows(n_seeds: int, rate: float = -0.009, persistence: float = 0.99) -> list[dict]:
    return [{"seed": s, **{f"{m}_{k}": v for m in PINNED for k, v in (("rate", rate), ("persistence", persistence))}}
            for s in range(n_seeds)]


def lower_bound_rows(slopes: dict[str, float], reached: dict[str, bool] | None = None) -> list[dict]:
    """A row per method; default slopes 1.0 (slow) and 0.17 (fast), every ε reached."""
    reached = reached or {}
    return [{"method": m, "slope": slopes.get(m, 1.0 if m in SLOW else 0.17), "reached_all": reached.get(m, True)}
            for m in (*SLOW, *FAST)]


def affine_row(seed: int, problem: str, slope: float, lo: float = -40.0, violations: int | None = None) -> dict:
    return {"seed": seed, "problem": problem, "loglog_slope": slope, "log10_f_range": [lo, -0.3],
            "bound_violations": violations}


def affine_rows(n_seeds: int, slope: float = 0.97, violations: int = 0) -> list[dict]:
    return [r for s in range(n_seeds) for r in (affine_row(s, "logistic", slope, violations=violations),
                                                 affine_row(s, "softmax_pg", 0.99), affine_row(s, "two_layer", 0.96))]


_SIGN = Planted(holds={"rows": sign_rows(1)}, fails={"rows": sign_rows(1, bad_seed=0)},
                budget_variants=(({"rows": sign_rows(5)}, {"rows": sign_rows(5, bad_seed=3)}),))

PLANTED = {
    "sign_gd_logistic": _SIGN,
    "sign_gd_softmax_pg": _SIGN,
    "adaptive_two_layer": Planted(
        holds={"rows": adaptive_rows(1), "methods": PINNED},
        fails={"rows": adaptive_rows(1, rate=-7e-4, persistence=0.74), "methods": PINNED},
        budget_variants=(({"rows": adaptive_rows(3), "methods": PINNED},
                          {"rows": adaptive_rows(3, rate=-7e-4), "methods": PINNED}),),
    ),
    "lower_bound": Planted(
        holds={"rows": lower_bound_rows({}), "slow": SLOW, "fast": FAST},
        fails={"rows": lower_bound_rows({"rmsprop": 0.98, "adam": 1.01}), "slow": SLOW, "fast": FAST},
    ),
    "affine_smoothness": Planted(
        holds={"rows": affine_rows(1)},
        fails={"rows": affine_rows(1, slope=0.02)},
        budget_variants=(({"rows": affine_rows(3)}, {"rows": affine_rows(3, violations=2)}),),
    ),
}
