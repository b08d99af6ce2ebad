"""Planted rows on both sides of each [P02] bar (used by test_rules.py and the conformance test).

``PLANTED`` covers the judged claims (``RULES``). ``ORGANISM`` covers the organism measurements of the ``UNJUDGED``
claims (``ORGANISM_RULES``, reported as findings): they must still separate a planted effect from its absence, or the
organism would not test our monitors either.
"""

from support.planted import Planted

ARCHS = ("intervention", "process", "outcome")


def scope_rows(values: dict[str, list[float]], archetypes: tuple[str, ...] = ARCHS) -> list[dict]:
    """One row per (archetype, monitor, seed): ``values[monitor][seed]`` is its g-mean² (same in every archetype)."""
    return [{"archetype": a, "monitor": m, "seed": s, "g_mean2": v}
            for a in archetypes for m, vs in values.items() for s, v in enumerate(vs)]


def sweep_rows(x: str, curves: dict[str, list[list[float]]], points: tuple[int, ...], key: str = "monitor"
               ) -> list[dict]:
    """One row per (archetype, ``key`` value, seed, ``x`` point): ``curves[name][seed][i]`` at ``points[i]``."""
    rows = []
    for a in ARCHS:
        for name, seeds in curves.items():
            for s, ys in enumerate(seeds):
                rows += [{"archetype": a, key: name, "seed": s, x: p, "g_mean2": y} for p, y in zip(points, ys)]
    return rows


def estimator_rows(errors: list[float]) -> list[dict]:
    """Estimated = true + ``errors[seed]`` for TPR and TNR, for the planted source and the organism."""
    return [{"source": src, "filter": "crossfit", "seed": s, "tpr": 0.8 + e, "true_tpr": 0.8, "tnr": 0.9 - e,
             "true_tnr": 0.9} for src in ("planted", "organism") for s, e in enumerate(errors)]


def real_rows(values: dict[str, list[float]]) -> list[dict]:
    return [{"monitor": m, "seed": s, "g_mean2": v} for m, vs in values.items() for s, v in enumerate(vs)]


UP = [[0.2, 0.3, 0.4, 0.5, 0.6], [0.25, 0.3, 0.42, 0.5, 0.62], [0.2, 0.32, 0.4, 0.52, 0.6]]
FLAT = [[0.5, 0.49, 0.5, 0.48, 0.47], [0.5, 0.5, 0.48, 0.47, 0.46], [0.52, 0.5, 0.49, 0.48, 0.46]]
K5 = (1, 2, 4, 8, 16)
R4 = (1, 3, 9, 27)

PLANTED = {
    "estimator_recovers": Planted(
        holds={"rows": estimator_rows([0.01, -0.005, 0.012])},
        fails={"rows": estimator_rows([0.06, -0.07, 0.05])},
        budget_variants=(({"rows": estimator_rows([0.01, -0.005, 0.012, 0.0, 0.008])},
                          {"rows": estimator_rows([0.06, -0.07, 0.05, 0.08, -0.06])}),),
    ),
    "cot_beats_action_real": Planted(
        holds={"rows": real_rows({"action": [0.2, 0.25, 0.22], "cot_words": [0.5, 0.55, 0.6],
                                  "cot_judge": [0.4, 0.45, 0.42]})},
        fails={"rows": real_rows({"action": [0.5, 0.52, 0.55], "cot_words": [0.2, 0.25, 0.3],
                                  "cot_judge": [0.2, 0.22, 0.25]})},
        budget_variants=(({"rows": real_rows({"action": [0.2] * 5, "cot_words": [0.5] * 5})},
                          {"rows": real_rows({"action": [0.5] * 5, "cot_words": [0.2] * 5})}),),
    ),
}

ORGANISM = {
    "cot_beats_action": Planted(
        holds={"rows": scope_rows({"all": [0.7, 0.72, 0.68], "action": [0.3, 0.35, 0.32]})},
        fails={"rows": scope_rows({"all": [0.3, 0.32, 0.31], "action": [0.5, 0.52, 0.49]})},
        budget_variants=(({"rows": scope_rows({"all": [0.7, 0.72, 0.68, 0.7, 0.71], "action": [0.3] * 5})},
                          {"rows": scope_rows({"all": [0.3, 0.32, 0.31, 0.3, 0.3], "action": [0.5] * 5})}),),
    ),
    "followup_helps": Planted(
        holds={"rows": scope_rows({"all+followup": [0.8, 0.82, 0.79], "all": [0.7, 0.72, 0.68]})},
        fails={"rows": scope_rows({"all+followup": [0.6, 0.61, 0.6], "all": [0.7, 0.72, 0.68]})},
        budget_variants=(({"rows": scope_rows({"all+followup": [0.8] * 5, "all": [0.7] * 5})},
                          {"rows": scope_rows({"all+followup": [0.6] * 5, "all": [0.7] * 5})}),),
    ),
    "longer_cot": Planted(
        holds={"rows": sweep_rows("cot_steps", {"all": UP, "action": FLAT}, K5)},
        fails={"rows": sweep_rows("cot_steps", {"all": FLAT, "action": FLAT}, K5)},
        budget_variants=(({"rows": sweep_rows("cot_steps", {"all": UP + UP[:2]}, K5)},
                          {"rows": sweep_rows("cot_steps", {"all": FLAT + FLAT[:2]}, K5)}),),
    ),
    "compute_scaling": Planted(
        holds={"rows": sweep_rows("reads", {"all": [u[:4] for u in UP], "action": [f[:4] for f in FLAT]}, R4,
                                  key="scope")},
        fails={"rows": sweep_rows("reads", {"all": [f[:4] for f in FLAT], "action": [u[:4] for u in UP]}, R4,
                                  key="scope")},
        budget_variants=(({"rows": sweep_rows("reads", {"all": [u[:3] for u in UP], "action": [f[:3] for f in FLAT]},
                                              R4[:3], key="scope")},
                          {"rows": sweep_rows("reads", {"all": [f[:3] for f in FLAT], "action": [u[:3] for u in UP]},
                                              R4[:3], key="scope")}),),
    ),
}
