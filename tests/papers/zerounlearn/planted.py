"""Planted measurement tables on both sides of each [P27] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def rows(methods: dict, seeds: int = 3):
    """One row per seed and method; ``methods[m]`` = (efficacy, generalisation, specificity, perplexity[, reached])."""
    out = []
    for s in range(seeds):
        for m, v in methods.items():
            r = {"seed": s, "method": m, "efficacy": v[0], "generalisation": v[1] + 0.1 * s, "specificity": v[2],
                 "perplexity": v[3] * (1 + 0.001 * s), "eos": 0.0, "seconds": 1.0}
            if len(v) > 4:
                r["reached"] = v[4]
            out.append(r)
    return out


BASE = (100.0, 40.0, 100.0, 16.0)
GOOD = {"base": BASE, "zerounlearn": (0.0, 5.0, 95.0, 16.3), "zerounlearn_no_op": (5.0, 15.0, 96.0, 16.2),
        "ga": (5.0, 4.0, 40.0, 60.0, True)}
BAD = {"base": BASE, "zerounlearn": (30.0, 25.0, 80.0, 18.0), "zerounlearn_no_op": (20.0, 10.0, 96.0, 16.2),
       "ga": (5.0, 4.0, 90.0, 17.0, True)}

PLANTED = {
    "targeted_unlearning": Planted(holds={"rows": rows(GOOD)}, fails={"rows": rows(BAD)},
                                   budget_variants=(({"rows": rows(GOOD, 10)}, {"rows": rows(BAD, 10)}),)),
    "gradient_ascent_cost": Planted(holds={"rows": rows(GOOD)}, fails={"rows": rows(BAD)},
                                    budget_variants=(({"rows": rows(GOOD, 10)}, {"rows": rows(BAD, 10)}),)),
    "projector_matters": Planted(holds={"rows": rows(GOOD)}, fails={"rows": rows(BAD)},
                                 budget_variants=(({"rows": rows(GOOD, 10)}, {"rows": rows(BAD, 10)}),)),
}
