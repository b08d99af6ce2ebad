"""Planted per-(seed, arm) tables on both sides of each [P24] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

ARMS = ("dmd", "aad", "causal", "adv_only")


def arm_rows(n_seeds: int = 3, **per_arm: dict) -> dict:
    """Rows for every seed and arm; ``per_arm[arm]`` overrides the defaults (a value or a per-seed list)."""
    base = {"displacement_ratio": 1.0, "static_rate": 0.0, "frame_error": 0.01, "drift": 0.02, "fluctuation": 0.05,
            "diverged": False}
    rows = []
    for s in range(n_seeds):
        for arm in ARMS:
            row = {"seed": s, "arm": arm, **base}
            for k, v in per_arm.get(arm, {}).items():
                row[k] = v[s % len(v)] if isinstance(v, list) else v
            rows.append(row)
    return {"rows": rows}


def motion(ratio: list, n_seeds: int = 3) -> dict:
    return arm_rows(n_seeds, aad={"displacement_ratio": ratio})


def collapse(causal: list, n_seeds: int = 3) -> dict:
    return arm_rows(n_seeds, causal={"displacement_ratio": causal}, aad={"displacement_ratio": [1.0, 1.02, 0.98]})


def stability(no_warm: list, n_seeds: int = 3) -> dict:
    return arm_rows(n_seeds, adv_only={"fluctuation": no_warm}, aad={"fluctuation": 0.05})


def drift(aad: list, n_seeds: int = 3) -> dict:
    return arm_rows(n_seeds, aad={"drift": aad}, dmd={"drift": 0.05})


def speed(ratio: float, reps: int = 6) -> dict:
    return {"rows": [{"rep": r, "teacher_s": 0.1 * (1 + 0.02 * (-1) ** r), "student_s": 0.1 / ratio}
                     for r in range(reps)]}


PLANTED = {
    "motion_kept": Planted(holds=motion([0.95, 1.0, 1.05]), fails=motion([0.4, 0.45, 0.5]),
                           budget_variants=((motion([0.95, 1.0, 1.05], n_seeds=6), motion([0.4, 0.5], n_seeds=6)),)),
    "causal_collapse": Planted(holds=collapse([0.3, 0.35, 0.4]), fails=collapse([0.95, 1.0, 1.05]),
                               budget_variants=((collapse([0.3, 0.4], n_seeds=6), collapse([1.0, 1.1], n_seeds=6)),)),
    "warmup_stability": Planted(holds=stability([0.2, 0.3, 0.25]), fails=stability([0.01, 0.02, 0.015]),
                                budget_variants=((stability([0.2, 0.3], n_seeds=6),
                                                  stability([0.01, 0.02], n_seeds=6)),)),
    "drift_2x": Planted(holds=drift([0.02, 0.03, 0.025]), fails=drift([0.1, 0.2, 0.15]),
                        budget_variants=((drift([0.02, 0.03], n_seeds=6), drift([0.1, 0.2], n_seeds=6)),)),
    "one_step_speed": Planted(holds=speed(30.0), fails=speed(3.0),
                              budget_variants=((speed(30.0, reps=20), speed(3.0, reps=20)),)),
}
