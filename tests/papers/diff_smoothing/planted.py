"""Planted measurements on both sides of each [P32] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

K = 16
PK, VK = f"pass@{K}", f"variant_pass@{K}"


def collapse(vanilla_distinct: list[float], vanilla_passk: list[float]) -> dict:
    n = len(vanilla_distinct)
    return {"base": {"distinct_correct": ([2.0, 1.9, 2.1] * n)[:n], PK: ([0.83, 0.84, 0.82] * n)[:n]},
            "vanilla": {"distinct_correct": vanilla_distinct, PK: vanilla_passk}, "k": K}


def theorem_grid(n: int = 200, counterexamples: int = 0) -> dict:
    """DS − vanilla per cell at γ/β = 0.1, 0.5, 0.8 (in the regime) and 2 (beyond it, where DS loses entropy on a
    third of the cells: never judged). ``counterexamples`` cells at γ/β = 0.8 lose a little entropy, as a near-uniform
    correct set would if the theorem failed there."""
    grid = []
    for g in (0.1, 0.5, 0.8, 2.0):
        p1 = [0.02 + 0.2 * g + 0.001 * (i % 7) for i in range(n)]
        vk = [0.01 + 0.05 * g + 0.0005 * (i % 5) for i in range(n)]
        ent = [0.005 + 0.1 * g + 0.002 * (i % 3) for i in range(n)]
        if g == 2.0:
            ent = [-0.03 if i % 3 == 0 else e for i, e in enumerate(ent)]
        if g == 0.8:
            ent = [-0.004 if i < counterexamples else e for i, e in enumerate(ent)]
        grid.append({"gamma_over_beta": g, "pass@1": p1, VK: vk, "entropy_correct": ent})
    return {"grid": grid}


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
        holds=theorem_grid(), fails=theorem_grid(counterexamples=3),
        budget_variants=((theorem_grid(n=2000), theorem_grid(n=2000, counterexamples=3)),)),
    "entropy_heuristics": Planted(holds=signs([0.45, 0.47, 0.43, 0.46]), fails=signs([0.30, 0.32, 0.28, 0.31])),
    "countdown_ds": Planted(holds=countdown([0.75, 0.76, 0.74]), fails=countdown([0.65, 0.66, 0.64])),
}
