"""Planted accuracy tables on both sides of each [P31] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

QS = ("beep", "colour", "where_at_beep")
BUDGETS = (0.5, 0.25, 0.125)


def table(acc: dict, n_seeds: int = 3, n: int = 1000) -> list[dict]:
    """``acc[(method, budget)]`` -> {question: accuracy} (the same every seed); "full" at budget 1.0."""
    rows = []
    for s in range(n_seeds):
        for (m, b), per in acc.items():
            for q in QS:
                rows.append({"seed": s, "method": m, "budget": b, "question": q, "n": n,
                             "correct": round(per[q] * n)})
    return rows


def flat(x: float, cross: float | None = None) -> dict:
    return {"beep": x, "colour": x, "where_at_beep": x if cross is None else cross}


def sweep(prim: float, base: float, full: float = 0.98, cross: float | None = None) -> dict:
    acc = {("full", 1.0): flat(full)}
    for b in BUDGETS:
        acc["prim", b] = flat(prim, cross)
        acc["uniform", b] = flat(base)
        acc["fastv", b] = flat(base)
    return acc


PLANTED = {
    "superior_tradeoff": Planted(holds={"rows": table(sweep(0.95, 0.80))}, fails={"rows": table(sweep(0.70, 0.90))},
                                 budget_variants=((({"rows": table(sweep(0.95, 0.80), n_seeds=6)}),
                                                   ({"rows": table(sweep(0.70, 0.90), n_seeds=6)})),)),
    "retains_full_accuracy": Planted(holds={"rows": table(sweep(0.97, 0.8)), "budget": 0.5},
                                     fails={"rows": table(sweep(0.80, 0.8)), "budget": 0.5}),
    "cross_modal_degrades_least": Planted(holds={"rows": table(sweep(0.90, 0.8, cross=0.97))},
                                          fails={"rows": table(sweep(0.95, 0.8, cross=0.70))}),
    "prefill_speedup": Planted(holds={"full_s": [2.0, 2.1, 1.9, 2.0], "compressed_s": [1.0, 1.1, 0.9, 1.0],
                                      "full_total_s": [2.1, 2.2, 2.0, 2.1], "compressed_total_s": [1.2, 1.3, 1.1, 1.2],
                                      "flops_ratio": 0.07},
                               # the LM alone is faster, but PRIM's scoring costs more than it saves
                               fails={"full_s": [1.0, 1.1, 0.9, 1.0], "compressed_s": [0.2, 0.25, 0.2, 0.2],
                                      "full_total_s": [1.1, 1.2, 1.0, 1.1], "compressed_total_s": [2.0, 2.1, 1.9, 2.0],
                                      "flops_ratio": 0.07}),
}
