"""Planted federation tables on both sides of each [P09] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

JITTER = (0.004, -0.003, 0.001, -0.002, 0.003, 0.0, -0.004, 0.002, -0.001, 0.004)


def compare_rows(gap: float, n_seeds: int = 3, *, base: float = 0.75) -> list[dict]:
    """MFedPBA ``gap`` (accuracy, not points) above every baseline of both settings, with a per-seed jitter."""
    rows = []
    for s in range(n_seeds):
        j = JITTER[s % len(JITTER)]
        for setting, methods in (("heterogeneous", ("local", "fedproto", "logit_avg")), ("same_architecture", ("fedavg",))):
            rows.append({"setting": setting, "fraction": 0.5, "method": "mfedpba", "seed": s, "accuracy": base + gap + j})
            for i, m in enumerate(methods):
                rows.append({"setting": setting, "fraction": 0.5, "method": m, "seed": s,
                             "accuracy": base + 0.002 * i - j / 2})
    return rows


def imbalance_rows(slope: float, n_seeds: int = 3, fractions=(0.2, 0.5, 0.8)) -> list[dict]:
    """MFedPBA's advantage over the best baseline = 0.01 + ``slope`` · f (accuracy units), jittered per seed."""
    rows = []
    for s in range(n_seeds):
        j = JITTER[s % len(JITTER)]
        for f in fractions:
            base = 0.8 - 0.1 * f
            rows.append({"setting": "heterogeneous", "fraction": f, "method": "mfedpba", "seed": s,
                         "accuracy": base + 0.01 + slope * f + j * f})
            for i, m in enumerate(("local", "fedproto", "logit_avg")):
                rows.append({"setting": "heterogeneous", "fraction": f, "method": m, "seed": s,
                             "accuracy": base - 0.005 * i})
    return rows


def ablation_rows(cost: float, n_seeds: int = 3) -> list[dict]:
    """Each ablation ``cost`` (accuracy units) below MFedPBA, jittered per seed."""
    rows = []
    for s in range(n_seeds):
        j = JITTER[s % len(JITTER)]
        rows.append({"setting": "heterogeneous", "fraction": 0.5, "method": "mfedpba", "seed": s, "accuracy": 0.78 + j})
        for m in ("mfedpba_no_gw", "mfedpba_uniform"):
            rows.append({"setting": "heterogeneous", "fraction": 0.5, "method": m, "seed": s,
                         "accuracy": 0.78 + j - cost + j / 3})
    return rows


PLANTED = {
    "outperforms_baselines": Planted(
        holds={"rows": compare_rows(0.03)}, fails={"rows": compare_rows(-0.03)},
        budget_variants=(({"rows": compare_rows(0.03, 5)}, {"rows": compare_rows(-0.03, 5)}),
                         ({"rows": compare_rows(0.03, 10)}, {"rows": compare_rows(-0.03, 10)}))),
    "advantage_grows_with_imbalance": Planted(
        holds={"rows": imbalance_rows(0.05)}, fails={"rows": imbalance_rows(-0.05)},
        budget_variants=(({"rows": imbalance_rows(0.05, 5)}, {"rows": imbalance_rows(-0.05, 5)}),
                         ({"rows": imbalance_rows(0.05, 10, (0.0, 0.2, 0.4, 0.6, 0.8, 1.0))},
                          {"rows": imbalance_rows(-0.05, 10, (0.0, 0.2, 0.4, 0.6, 0.8, 1.0))}))),
    "both_alignments_contribute": Planted(
        holds={"rows": ablation_rows(0.02)}, fails={"rows": ablation_rows(-0.02)},
        budget_variants=(({"rows": ablation_rows(0.02, 5)}, {"rows": ablation_rows(-0.02, 5)}),
                         ({"rows": ablation_rows(0.02, 10)}, {"rows": ablation_rows(-0.02, 10)}))),
}
