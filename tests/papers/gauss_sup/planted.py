"""Planted rows on both sides of each [P33] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def concentration_rows(variances: dict[int, list[float]], seeds=(0, 1, 2)) -> list[dict]:
    """``variances[n]``: the σ² of the first entries (the rest 0), the same at every seed, OPT = 0.5."""
    return [{"n": n, "seed": s, "opt": 0.5, "variance": w + [0.0] * (n - len(w))}
            for n, w in variances.items() for s in seeds]


def ptas_rows(algs: list[float], *, eps=0.2, opt=1.0, top=0.0, budget=1.0) -> list[dict]:
    return [{"n": 6 + i, "eps": eps, "seed": i, "alg": a, "opt": opt, "top": top, "budget": budget}
            for i, a in enumerate(algs)]


def log_n_rows(gains: list[float], margins: list[float], *, n=20, budget=1.0) -> list[dict]:
    return [{"n": n, "gain_ratio": g, "margin": d, "budget": budget} for g, d in zip(gains, margins)]


FOUR = [0.25] * 4
SPREAD = [0.1] * 10

PLANTED = {
    "concentration": Planted(
        holds={"rows": concentration_rows({5: FOUR, 10: FOUR})},
        fails={"rows": concentration_rows({5: FOUR, 10: SPREAD})},
        budget_variants=((
            {"rows": concentration_rows({5: FOUR, 50: FOUR, 200: FOUR}, seeds=(0, 1, 2, 3, 4))},
            {"rows": concentration_rows({5: FOUR, 50: SPREAD, 200: SPREAD}, seeds=(0, 1, 2, 3, 4))}),),
    ),
    "ptas": Planted(
        holds={"rows": ptas_rows([0.95, 0.97, 0.99])},
        fails={"rows": ptas_rows([0.95, 0.7, 0.99])},
        budget_variants=((
            {"rows": ptas_rows([0.95, 0.97, 0.99] * 6, eps=0.1)},
            {"rows": ptas_rows([0.95, 0.85, 0.99] * 6, eps=0.1)}),),
    ),
    "log_n_approx": Planted(
        holds={"rows": log_n_rows([0.95, 0.9, 0.97], [0.3, 0.25, 0.35])},
        fails={"rows": log_n_rows([0.6, 0.6, 0.6], [0.0, 0.0, 0.0])},
        budget_variants=((
            {"rows": log_n_rows([0.95, 0.9, 0.97] * 6, [0.3, 0.25, 0.35] * 6, n=100)},
            {"rows": log_n_rows([0.6, 0.6, 0.6] * 6, [0.0, 0.02, 0.01] * 6, n=100)}),),
    ),
}
