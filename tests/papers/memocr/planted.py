"""Planted answer tables on both sides of each [P29] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

BUDGETS = (4, 8, 16, 32, 64, 1024)


def rows(acc: dict, *, seeds: int = 3, questions: int = 10) -> list[dict]:
    """``acc[method]`` maps a budget to the share of questions answered (the first ``round(share·n)`` of each seed)."""
    out = []
    for m, by_b in acc.items():
        for b, a in by_b.items():
            for s in range(seeds):
                k = round(a * questions)
                out.extend({"seed": s, "episode": 0, "question": q, "budget": b, "method": m, "correct": q < k}
                           for q in range(questions))
    return out


def curve(*pts: float) -> dict:
    return dict(zip(BUDGETS, pts))


GOOD = {"layout": curve(0.7, 0.9, 0.9, 0.9, 0.9, 1.0), "uniform": curve(0, 0, 0, 0.1, 0.3, 1.0),
        "text": curve(0, 0, 0, 0.1, 0.2, 1.0), "random": {16: 0.1}}
BAD = {"layout": curve(0, 0.1, 0.3, 0.5, 0.6, 0.6), "uniform": curve(0, 0, 0.3, 0.6, 0.6, 1.0),
       "text": curve(0, 0, 0.3, 0.5, 0.6, 1.0), "random": {16: 0.6}}

PLANTED = {
    "low_budget_gain": Planted(holds={"rows": rows(GOOD)}, fails={"rows": rows(BAD)},
                               budget_variants=(({"rows": rows(GOOD, seeds=5, questions=20)},
                                                 {"rows": rows(BAD, seeds=5, questions=20)}),)),
    "parity_at_full": Planted(holds={"rows": rows(GOOD)}, fails={"rows": rows(BAD)},
                              budget_variants=(({"rows": rows(GOOD, seeds=5, questions=20)},
                                                {"rows": rows(BAD, seeds=5, questions=20)}),)),
    "policy_beats_random": Planted(holds={"rows": rows(GOOD)}, fails={"rows": rows(BAD)},
                                   budget_variants=(({"rows": rows(GOOD, seeds=5, questions=20)},
                                                     {"rows": rows(BAD, seeds=5, questions=20)}),)),
    "token_efficiency": Planted(holds={"rows": rows(GOOD)}, fails={"rows": rows(BAD)},
                                budget_variants=(({"rows": rows(GOOD, seeds=5, questions=20)},
                                                  {"rows": rows(BAD, seeds=5, questions=20)}),)),
}
