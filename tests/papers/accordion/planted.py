"""Planted run tables on both sides of each [P25] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def gap_rows(sft: list[tuple[float, float]], rl: list[tuple[float, float]]) -> list[dict]:
    """One row per seed from (Fold, Unfold) accuracies (points) after SFT and after RL."""
    return [{"seed": s, "sft_fold": a[0], "sft_unfold": a[1], "rl_fold": b[0], "rl_unfold": b[1]}
            for s, (a, b) in enumerate(zip(sft, rl))]


def completeness_rows(sft: list[float], rl: list[float]) -> list[dict]:
    return [{"seed": s, "sft_completeness": a, "rl_completeness": b} for s, (a, b) in enumerate(zip(sft, rl))]


def kv_rows(fold: list[float], unfold: list[float], finished: float = 1.0) -> list[dict]:
    return [{"seed": s, "fold_peak": f, "unfold_peak": u, "fold_finished": finished, "unfold_finished": finished}
            for s, (f, u) in enumerate(zip(fold, unfold))]


def tps_rows(fold: list[float], unfold: list[float]) -> list[dict]:
    return [{"repeat": r, "fold_tps": f, "unfold_tps": u} for r, (f, u) in enumerate(zip(fold, unfold))]


_SFT3 = [(40.0, 75.0), (38.0, 72.0), (42.0, 78.0)]
_SFT5 = _SFT3 + [(41.0, 74.0), (39.0, 76.0)]

PLANTED = {
    "gap_vanishes": Planted(
        holds={"rows": gap_rows(_SFT3, [(80.0, 80.5), (79.0, 79.0), (81.0, 80.0)])},
        fails={"rows": gap_rows(_SFT3, [(50.0, 78.0), (52.0, 76.0), (48.0, 79.0)])},
        budget_variants=((
            {"rows": gap_rows(_SFT5, [(80.0, 80.5), (79.0, 79.0), (81.0, 80.0), (80.0, 81.0), (79.5, 80.0)])},
            {"rows": gap_rows(_SFT5, [(50.0, 78.0), (52.0, 76.0), (48.0, 79.0), (51.0, 77.0), (49.0, 78.0)])}),),
    ),
    "summary_completeness": Planted(
        holds={"rows": completeness_rows([0.40, 0.45, 0.38], [0.95, 0.97, 0.93])},
        fails={"rows": completeness_rows([0.40, 0.45, 0.38], [0.45, 0.48, 0.42])},
        budget_variants=((
            {"rows": completeness_rows([0.40, 0.45, 0.38, 0.42, 0.41], [0.95, 0.97, 0.93, 0.96, 0.94])},
            {"rows": completeness_rows([0.40, 0.45, 0.38, 0.42, 0.41], [0.45, 0.48, 0.42, 0.44, 0.43])}),),
    ),
    "fold_kv": Planted(
        holds={"rows": kv_rows([52.0, 52.0, 53.0], [172.0, 172.0, 171.0])},
        fails={"rows": kv_rows([150.0, 148.0, 152.0], [172.0, 172.0, 171.0])},
        budget_variants=((
            {"rows": kv_rows([52.0, 52.0, 53.0, 52.0, 52.0], [172.0, 172.0, 171.0, 172.0, 172.0])},
            {"rows": kv_rows([150.0, 148.0, 152.0, 150.0, 151.0], [172.0, 172.0, 171.0, 172.0, 172.0])}),),
    ),
    "throughput": Planted(
        holds={"rows": tps_rows([4000.0, 4200.0, 4100.0], [1000.0, 1010.0, 990.0])},
        fails={"rows": tps_rows([1000.0, 1050.0, 1020.0], [1000.0, 1010.0, 990.0])},
        budget_variants=((
            {"rows": tps_rows([4000.0, 4200.0, 4100.0, 4050.0, 4150.0], [1000.0, 1010.0, 990.0, 1000.0, 1005.0])},
            {"rows": tps_rows([1000.0, 1050.0, 1020.0, 1010.0, 1030.0], [1000.0, 1010.0, 990.0, 1000.0, 1005.0])}),),
    ),
}
