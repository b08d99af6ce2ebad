"""Planted measurements on both sides of each [P32] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

K = 16
PK, VK = f"pass@{K}", f"variant_pass@{K}"


def collapse(vanilla_distinct: list[float], vanilla_passk: list[float]) -> dict:
    n = len(vanilla_distinct)
    return {"base": {"distinct_correct": ([2.0, 1.9, 2.1] * n)[:n], PK: ([0.83, 0.84, 0.82] * n)[:n]},
            "vanilla": {"distinct_correct": vanilla_distinct, PK: vanilla_passk}, "k": K}


def optimum(ds_variant: list[float], n: int = 1) -> dict:
    va = {"pass@1": [0.55, 0.50, 0.60] * n, VK: [0.86, 0.85, 0.88] * n, "entropy_correct": [0.77, 0.75, 0.79] * n}
    ds = {"pass@1": [0.78, 0.75, 0.80] * n, VK: ds_variant * n, "entropy_correct": [0.84, 0.83, 0.85] * n}
    return {"ds": ds, "vanilla": va, "k": K}


def signs(bonus_entropy: list[float]) -> dict:
    by = {"vanilla": {"pass@1": [0.60, 0.62, 0.58, 0.61], "entropy_correct": [0.40, 0.42, 0.38, 0.41]},
          "entropy_bonus": {"pass@1": [0.57, 0.60, 0.55, 0.58], "entropy_correct": bonus_entropy},
          "entropy_min": {"pass@1": [0.62, 0.64, 0.60, 0.63], "entropy_correct": [0.37, 0.40, 0.35, 0.39]},
          "ds": {"pass@1": [0.67, 0.70, 0.65, 0.68], "entropy_correct": [0.35, 0.37, 0.33, 0.36]}}
    return {"per": {"exact": by, "sampled": by}}


def countdown(ds_passk: list[float]) -> dict:
    return {"ds": {"pass@1": [0.26, 0.25, 0.27], PK: ds_passk},
            "vanilla": {"pass@1": [0.24, 0.23, 0.25], PK: [0.72, 0.73, 0.71]}, "k": K}


PLANTED = {
    "vanilla_collapse": Planted(
        holds=collapse([1.3, 1.4, 1.35], [0.71, 0.72, 0.70]), fails=collapse([2.5, 2.6, 2.4], [0.71, 0.72, 0.70]),
        budget_variants=((collapse([1.3, 1.4, 1.35, 1.3, 1.32], [0.71, 0.72, 0.70, 0.7, 0.73]),
                          collapse([1.3, 1.4, 1.35, 1.3, 1.32], [0.9, 0.91, 0.9, 0.92, 0.9])),)),
    "ds_improves_both": Planted(
        holds=optimum([0.93, 0.92, 0.94]), fails=optimum([0.80, 0.79, 0.81]),
        budget_variants=((optimum([0.93, 0.92, 0.94], n=100), optimum([0.80, 0.79, 0.81], n=100)),)),
    "entropy_heuristics": Planted(holds=signs([0.45, 0.47, 0.43, 0.46]), fails=signs([0.30, 0.32, 0.28, 0.31])),
    "countdown_ds": Planted(holds=countdown([0.75, 0.76, 0.74]), fails=countdown([0.65, 0.66, 0.64])),
}
