"""Planted run tables on both sides of each [P07] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

KINDS = {"denoise": "nmse", "rows": "accuracy"}
DESCENDING = [1.0, 0.6, 0.4, 0.3]
BUMPY = [1.0, 1.2, 0.5, 0.3]  # one of three adjacent pairs goes up


def run_rows(n_seeds=3, *, con=DESCENDING, erm=BUMPY, gain=0.0, field=None, spread=0.0):
    """Constrained and ERM runs on two tasks; the constrained metric is ``gain`` better than ERM's (relative for the
    NMSE task, in points for accuracy) on ``field`` (all of id/perturbed/ood when None), ± ``spread`` by seed."""
    rows = []
    for task, kind in KINDS.items():
        for s in range(n_seeds):
            base = 0.2 if kind == "nmse" else 0.8
            g = gain + spread * (1 if s % 2 else -1)
            better = base * (1 - g) if kind == "nmse" else base + g
            for method, layers in (("constrained", con), ("erm", erm)):
                vals = {f: (better if method == "constrained" and field in (None, f) else base)
                        for f in ("id", "perturbed", "ood")}
                rows.append({"task": task, "method": method, "seed": s, "kind": kind, "layer_loss": list(layers),
                             **vals})
    return rows


def _both(field, good, bad):
    return Planted(holds={"rows": run_rows(gain=good, field=field)}, fails={"rows": run_rows(gain=bad, field=field)},
                   budget_variants=(({"rows": run_rows(8, gain=good, field=field)},
                                     {"rows": run_rows(8, gain=bad, field=field)}),))


PLANTED = {
    "monotone_descent": Planted(
        holds={"rows": run_rows()},
        fails={"rows": run_rows(con=BUMPY)},
        budget_variants=(({"rows": run_rows(8)}, {"rows": run_rows(8, con=BUMPY)}),
                         ({"rows": run_rows(3, erm=[1.0, 0.6, 0.7, 0.3])},  # ERM monotone too: fails
                          {"rows": run_rows(3, erm=DESCENDING)})),
    ),
    "in_distribution": _both("id", 0.0, -0.1),
    "perturbation_robustness": _both("perturbed", 0.05, -0.05),
    "ood_generalization": _both("ood", 0.05, -0.05),
}
