"""Planted per-seed rows on both sides of each [P18] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

AT = 500  # the fixed reward step at which fsd_decreases reads the violation (ExperimentConfig.fsd_step)


def shape_rows(sigma_safe: list[float], sigma_risky: list[float], mu_safe: list[float], mu_risky: list[float]) -> list[dict]:
    return [{"seed": s, "sigma_safe": a, "sigma_risky": b, "mu_safe": c, "mu_risky": d}
            for s, (a, b, c, d) in enumerate(zip(sigma_safe, sigma_risky, mu_safe, mu_risky))]


BC = [0.85, 0.89, 0.92, 0.88, 0.91]  # behaviour cloning of the 10%-noisy demonstrator: about 0.9
MAXENT = [0.64, 0.66, 0.67, 0.66, 0.67]


def agree_rows(dirl: list[float], bc: list[float] | None = None) -> list[dict]:
    """Per seed, the agreement over every decision state of DIRL, BC and MaxEnt IRL (BC and MaxEnt as measured)."""
    n = len(dirl)
    bc = bc if bc is not None else (BC * n)[:n]
    return [{"seed": s, "dirl": a, "bc": b, "maxent": m} for s, (a, b, m) in enumerate(zip(dirl, bc, (MAXENT * n)[:n]))]


def fsd_rows(curve: dict[int, float], n_seeds: int = 3, jitter: float = 0.01) -> list[dict]:
    """``n_seeds`` copies of the violation curve ``{step: violation}``, scaled by 1 + jitter * seed."""
    steps = sorted(curve)
    return [{"seed": s, "checkpoints": steps, "violation": [curve[t] * (1 + jitter * s) for t in steps]}
            for s in range(n_seeds)]


# a curve that falls early and one that only falls at the very end of a 2000-step run
FALLS = {0: 0.23, 1: 0.3, 10: 0.1, 100: 0.02, AT: 0.0, 1000: 0.0, 2000: 0.0}
LATE = {0: 0.23, 1: 0.45, 10: 0.45, 100: 0.45, AT: 0.45, 1000: 0.45, 2000: 0.0}
# the same curves run ten times longer: the reading at step 500 does not change, whatever the end does
FALLS_LONG = {**FALLS, 5000: 0.0, 20000: 0.0}
LATE_LONG = {**LATE, 2000: 0.45, 5000: 0.0, 20000: 0.0}

RIGHT = shape_rows([0.1, 0.2, 0.05], [2.0, 1.5, 3.0], [0.0, -0.1, 0.0], [1.0, 0.5, 0.8])
INVERTED = shape_rows([0.6, 0.58, 0.55], [0.3, 0.32, 0.28], [0.1, 0.08, 0.09], [-0.1, -0.08, -0.09])

PLANTED = {
    "reward_shape": Planted(
        holds={"rows": RIGHT},
        fails={"rows": INVERTED},
        budget_variants=((
            {"rows": shape_rows([0.1] * 10, [2.0 + 0.1 * i for i in range(10)], [0.0] * 10, [1.0] * 10)},
            {"rows": shape_rows([0.6] * 10, [0.3 + 0.01 * i for i in range(10)], [0.1] * 10, [-0.1] * 10)}),),
    ),
    "risk_averse_imitation": Planted(
        holds={"rows": agree_rows([1.0, 0.98, 1.0])},
        fails={"rows": agree_rows([0.5, 0.5, 0.5])},  # always safe: right in the short context, wrong in the long one
        budget_variants=(({"rows": agree_rows([1.0, 0.98] * 5)}, {"rows": agree_rows([0.5] * 10)}),),
    ),
    "fsd_decreases": Planted(
        holds={"rows": fsd_rows(FALLS), "at": AT},
        fails={"rows": fsd_rows(LATE), "at": AT},
        budget_variants=(({"rows": fsd_rows(FALLS_LONG), "at": AT}, {"rows": fsd_rows(LATE_LONG), "at": AT}),
                         ({"rows": fsd_rows(FALLS, 10), "at": AT}, {"rows": fsd_rows(LATE, 10), "at": AT})),
    ),
}
