"""Planted run rows on both sides of each [P23] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

JUDGED = ("anira_e", "anira_o_act", "anira_o_ponder")


def rows(values: dict, *, task: str = "pointer", seeds: int = 3, methods=JUDGED) -> list[dict]:
    """One row per (method, seed); ``values[key]`` is a number or a per-seed list, the same for every method unless
    ``values[key]`` is a dict ``{method: number or list}``."""
    out = []
    for m in methods:
        for s in range(seeds):
            row = {"task": task, "method": m, "seed": s}
            for k, v in values.items():
                v = v.get(m, v.get("*")) if isinstance(v, dict) else v
                row[k] = v[s % len(v)] if isinstance(v, list) else v
            out.append(row)
    return out


def extrapolation(id_acc, ood_acc, id_depth, ood_depth, seeds=3):
    return rows({"id_accuracy": id_acc, "ood_accuracy": ood_acc, "id_depth": id_depth, "ood_depth": ood_depth},
                seeds=seeds)


def timing(e_static, e_state, o_static, o_state, seeds=3):
    return rows({"r2_static": {"anira_e": e_static, "*": o_static}, "r2_state": {"anira_e": e_state, "*": o_state}},
                task="topo", seeds=seeds)


PLANTED = {
    "depth_tracks_difficulty": Planted(
        holds={"rows": rows({"rho": [0.5, 0.6, 0.55]})},
        fails={"rows": rows({"rho": {"anira_e": [0.05, 0.1, 0.0], "*": [0.5, 0.6, 0.55]}})},
        budget_variants=((
            {"rows": rows({"rho": [0.5, 0.6, 0.55, 0.45, 0.7]}, seeds=5)},
            {"rows": rows({"rho": {"anira_e": [0.05, 0.1, 0.0, 0.12, 0.2], "*": [0.5, 0.6, 0.55, 0.5, 0.6]}},
                          seeds=5)}),),
    ),
    "no_length_extrapolation": Planted(
        holds={"rows": extrapolation([0.95, 0.97, 0.96], [0.4, 0.5, 0.45], [3.0, 3.2, 3.1], [4.0, 4.4, 4.2])},
        fails={"rows": extrapolation([0.95, 0.97, 0.96], [0.9, 0.93, 0.9], [3.0, 3.2, 3.1], [4.0, 4.4, 4.2])},
        budget_variants=((
            {"rows": extrapolation([0.95, 0.97, 0.96, 0.98], [0.4, 0.5, 0.45, 0.3], [3.0, 3.2, 3.1, 3.0],
                                   [4.0, 4.4, 4.2, 4.1], seeds=4)},
            {"rows": extrapolation([0.95, 0.97, 0.96, 0.98], [0.4, 0.5, 0.45, 0.3], [3.0, 3.2, 3.1, 3.0],
                                   [2.0, 2.4, 2.2, 2.1], seeds=4)}),),
    ),
    "decision_timing": Planted(
        holds={"rows": timing([0.5, 0.55, 0.45], [0.3, 0.35, 0.3], [0.2, 0.25, 0.2], [0.8, 0.75, 0.85])},
        fails={"rows": timing([0.1, 0.15, 0.1], [0.3, 0.35, 0.3], [0.4, 0.45, 0.4], [0.8, 0.75, 0.85])},
        budget_variants=((
            {"rows": timing([0.5, 0.55, 0.45, 0.5, 0.6], [0.3] * 5, [0.2] * 5, [0.8] * 5, seeds=5)},
            {"rows": timing([0.5, 0.55, 0.45, 0.5, 0.6], [0.9] * 5, [0.2] * 5, [0.3] * 5, seeds=5)}),),
    ),
}
