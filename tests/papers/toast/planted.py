"""Planted measurement tables on both sides of each [P35] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def tcs_rows(dense, tcs, random, magnitude, ratio=0.5):
    rows = []
    for s, (d, t, r, m) in enumerate(zip(dense, tcs, random, magnitude)):
        rows.append({"seed": s, "ratio": 0.0, "method": "dense", "accuracy": d})
        rows += [{"seed": s, "ratio": ratio, "method": k, "accuracy": v}
                 for k, v in (("tcs", t), ("random", r), ("magnitude", m))]
    return rows


def coupling_rows(acc: dict):
    return [{"seed": s, "coupling": c, "oneshot": v - 5.0, "finetuned": v} for c, vs in acc.items()
            for s, v in enumerate(vs)]


def budget_rows(dense_ft, toast, macs_toast=650):
    return [{"seed": s, "dense": a - 0.5, "dense_ft": a, "scwp": b + 0.2, "toast": b, "macs_dense": 1000,
             "macs_toast": macs_toast} for s, (a, b) in enumerate(zip(dense_ft, toast))]


def times(dense, toast):
    return [{"round": i, "dense_s": d, "toast_s": t} for i, (d, t) in enumerate(zip(dense, toast))]


DENSE = [97.0, 96.5, 97.2]
GOOD_TCS = [96.8, 96.4, 97.0]
BAD_TCS = [94.0, 93.5, 94.2]
RAND = [90.0, 89.0, 91.0]
MAG = [93.0, 92.5, 94.0]
COUPLED = {"coupled": [96.0, 96.5, 96.2], "average": [95.5, 96.0, 96.0], "q_only": [95.0, 95.0, 95.5],
           "independent": [93.0, 94.0, 93.5]}
WORSE = {**COUPLED, "coupled": [94.0, 94.5, 94.2]}
VARIANTS = ("average", "q_only", "independent")

PLANTED = {
    "tcs_training_free": Planted(
        holds={"rows": tcs_rows(DENSE, GOOD_TCS, RAND, MAG), "ratio": 0.5},
        fails={"rows": tcs_rows(DENSE, BAD_TCS, RAND, MAG), "ratio": 0.5},
        budget_variants=((
            {"rows": tcs_rows(DENSE * 2, GOOD_TCS * 2, RAND * 2, MAG * 2), "ratio": 0.5},
            {"rows": tcs_rows(DENSE * 2, BAD_TCS * 2, RAND * 2, MAG * 2), "ratio": 0.5}),),
    ),
    "coupled_pruning": Planted(
        holds={"rows": coupling_rows(COUPLED), "variants": VARIANTS},
        fails={"rows": coupling_rows(WORSE), "variants": VARIANTS},
        budget_variants=((
            {"rows": coupling_rows({k: v * 3 for k, v in COUPLED.items()}), "variants": VARIANTS},
            {"rows": coupling_rows({k: v * 3 for k, v in WORSE.items()}), "variants": VARIANTS}),),
    ),
    "accuracy_efficiency": Planted(
        holds={"rows": budget_rows([97.0, 97.2, 96.8], [96.5, 96.9, 96.3])},
        fails={"rows": budget_rows([97.0, 97.2, 96.8], [94.0, 94.2, 93.8])},
        budget_variants=((
            {"rows": budget_rows([97.0, 97.2, 96.8] * 3, [96.5, 96.9, 96.3] * 3)},
            {"rows": budget_rows([97.0, 97.2, 96.8] * 3, [94.0, 94.2, 93.8] * 3)}),),
    ),
    "throughput": Planted(
        holds={"times": times([2.0, 2.1, 1.9, 2.0], [0.9, 0.92, 0.88, 0.9]), "macs_dense": 4.6e9, "macs_toast": 2.7e9},
        fails={"times": times([2.0, 2.1, 1.9, 2.0], [1.5, 1.55, 1.45, 1.5]), "macs_dense": 4.6e9, "macs_toast": 2.7e9},
        budget_variants=((
            {"times": times([2.0, 2.1, 1.9, 2.0] * 5, [0.9, 0.92, 0.88, 0.9] * 5), "macs_dense": 4.6e9,
             "macs_toast": 2.7e9},
            {"times": times([2.0, 2.1, 1.9, 2.0] * 5, [1.5, 1.55, 1.45, 1.5] * 5), "macs_dense": 4.6e9,
             "macs_toast": 2.7e9}),),
    ),
}
