"""Planted result rows on both sides of each [P08] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def detect_rows(f1: dict, seeds: int = 3, jitter: float = 0.01, kind: str = "boundary") -> list[dict]:
    """``f1[(dataset, rate)]`` a mean F1; seeds spread by ±jitter."""
    return [{"dataset": d, "kind": kind, "rate": r, "seed": s, "f1": v + jitter * (s % 3 - 1)}
            for (d, r), v in f1.items() for s in range(seeds)]


def feb_rows(taus: dict, seeds: int = 3) -> list[dict]:
    """``taus[rate] = (tau_noisy, tau_purified)``."""
    return [{"rate": r, "seed": s, "tau_noisy": tn + 0.02 * (s % 3 - 1), "tau_purified": tp + 0.01 * (s % 2)}
            for r, (tn, tp) in taus.items() for s in range(seeds)]


def gain_rows(acc: dict, seeds: int = 3) -> list[dict]:
    """``acc[rate] = (acc_noisy, acc_purified)``."""
    return [{"rate": r, "seed": s, "acc_noisy": an + 0.005 * (s % 3 - 1), "acc_purified": ap + 0.003 * (s % 2)}
            for r, (an, ap) in acc.items() for s in range(seeds)]


def no_harm_rows(acc: dict, seeds: int = 3) -> list[dict]:
    """``acc[dataset] = (acc_original, acc_purified)``."""
    return [{"dataset": d, "seed": s, "acc_original": ao + 0.002 * (s % 3 - 1), "acc_purified": ap}
            for d, (ao, ap) in acc.items() for s in range(seeds)]


def baseline_rows(acc: dict, seeds: int = 3) -> list[dict]:
    """``acc[(dataset, rate)] = (ours, small_loss, confident_learning)``."""
    return [{"dataset": d, "rate": r, "seed": s, "acc_ours": o + 0.004 * (s % 3 - 1), "acc_small_loss": sl,
             "acc_confident_learning": cl} for (d, r), (o, sl, cl) in acc.items() for s in range(seeds)]


CELLS = [("digits", 0.2), ("digits", 0.4), ("breast_cancer", 0.2), ("breast_cancer", 0.4)]

PLANTED = {
    "detection_f1": Planted(
        holds={"rows": detect_rows({c: 0.65 for c in CELLS}) + detect_rows({c: 0.1 for c in CELLS}, kind="symmetric")},
        fails={"rows": detect_rows({**{c: 0.65 for c in CELLS}, ("digits", 0.4): 0.3})},
        budget_variants=((
            {"rows": detect_rows({c: 0.65 for c in CELLS}, seeds=10)},
            {"rows": detect_rows({**{c: 0.65 for c in CELLS}, ("digits", 0.4): 0.3}, seeds=10)}),),
    ),
    "feb_kendall": Planted(
        holds={"rows": feb_rows({0.2: (0.3, 0.5), 0.4: (0.1, 0.45)})},
        fails={"rows": feb_rows({0.2: (0.3, 0.5), 0.4: (0.4, 0.2)})},
        budget_variants=((
            {"rows": feb_rows({0.2: (0.3, 0.5), 0.4: (0.1, 0.45)}, seeds=10)},
            {"rows": feb_rows({0.2: (0.3, 0.5), 0.4: (0.4, 0.2)}, seeds=10)}),),
    ),
    "accuracy_gain": Planted(
        holds={"rows": gain_rows({0.2: (0.85, 0.86), 0.4: (0.70, 0.78)}), "rate": 0.4},
        fails={"rows": gain_rows({0.2: (0.85, 0.95), 0.4: (0.70, 0.705)}), "rate": 0.4},
        budget_variants=((
            {"rows": gain_rows({0.4: (0.70, 0.78)}, seeds=10), "rate": 0.4},
            {"rows": gain_rows({0.4: (0.70, 0.705)}, seeds=10), "rate": 0.4}),),
    ),
    "no_harm_clean": Planted(
        holds={"rows": no_harm_rows({"digits": (0.97, 0.97), "breast_cancer": (0.95, 0.952)})},
        fails={"rows": no_harm_rows({"digits": (0.97, 0.93), "breast_cancer": (0.95, 0.952)})},
        budget_variants=((
            {"rows": no_harm_rows({"digits": (0.97, 0.97)}, seeds=10)},
            {"rows": no_harm_rows({"digits": (0.97, 0.93)}, seeds=10)}),),
    ),
    "beats_baselines": Planted(
        holds={"rows": baseline_rows({c: (0.90, 0.85, 0.86) for c in CELLS})},
        fails={"rows": baseline_rows({**{c: (0.90, 0.85, 0.86) for c in CELLS}, ("digits", 0.2): (0.90, 0.85, 0.95)})},
        budget_variants=((
            {"rows": baseline_rows({c: (0.90, 0.85, 0.86) for c in CELLS}, seeds=10)},
            {"rows": baseline_rows({("digits", 0.2): (0.90, 0.85, 0.95)}, seeds=10)}),),
    ),
}
