"""Planted measurements on both sides of each [P21] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

PAIRS = ("relu/reglu", "gelu/geglu", "silu/swiglu")
WOBBLE = (0.9, 1.05, 1.0, 0.95, 1.1)  # a per-run spread around each planted value


def spectrum_rows(kappa_ratio: float, top_share_ratio: float, runs: int = 5) -> list[dict]:
    return [{"pair": p, "kappa_ratio": kappa_ratio * WOBBLE[i % 5], "top_share_ratio": top_share_ratio}
            for p in PAIRS for i in range(runs)]


def epoch_rows(epochs_non: int | None, epochs_glu: int | None, n: int = 9) -> list[dict]:
    """``n`` trained (seed, activation) pairs: epochs to the train-loss mark ± 1 around the given values (``None``: a
    miss)."""
    acts = ("relu", "gelu", "silu")
    return [{"seed": i // 3, "activation": acts[i % 3],
             "epochs_non": None if epochs_non is None else epochs_non + (i % 3 - 1),
             "epochs_glu": None if epochs_glu is None else epochs_glu + (i % 2)} for i in range(n)]


def crossings(k: int, n: int) -> list[int | None]:
    """``k`` of ``n`` runs cross (at step 100 + i), the others do not."""
    return [100 + i if i < k else None for i in range(n)]


GAP_NON = [0.058, 0.050, 0.055, 0.061, 0.047, 0.052, 0.057, 0.049, 0.054]  # digits-sized gaps (nats), 3 seeds × 3 pairs


def gap_rows(glu_factor: list[float] | float, *, epochs_non: int = 17, epochs_glu: int = 10, n: int = 9) -> list[dict]:
    """``n`` (seed, pair) rows: GLU's gap = non-GLU's × factor; epochs to the mark ± 1 around the given values."""
    f = glu_factor if isinstance(glu_factor, list) else [glu_factor] * n
    return [{"epochs_non": epochs_non + (i % 3 - 1), "epochs_glu": epochs_glu + (i % 2),
             "gap_non": GAP_NON[i % 9], "gap_glu": GAP_NON[i % 9] * f[i]} for i in range(n)]


PLANTED = {
    "smaller_condition_number": Planted(
        holds={"rows": spectrum_rows(9.0, 5.0)},
        fails={"rows": spectrum_rows(1.2, 0.9)},
        budget_variants=(({"rows": spectrum_rows(9.0, 5.0, 15)}, {"rows": spectrum_rows(1.2, 0.9, 15)}),),
    ),
    "faster_convergence": Planted(  # the digits runs measured 17 vs 10 epochs; a GLU slower by as much fails
        holds={"rows": epoch_rows(17, 10), "epochs": 60},
        fails={"rows": epoch_rows(10, 17), "epochs": 60},
        budget_variants=(({"rows": epoch_rows(17, 10, 18), "epochs": 120},
                          {"rows": epoch_rows(10, 17, 18), "epochs": 120}),),
    ),
    "loss_crossing": Planted(
        holds={"linearized": crossings(9, 10), "trained": crossings(3, 3)},
        fails={"linearized": crossings(2, 10), "trained": crossings(3, 3)},
        budget_variants=(({"linearized": crossings(40, 45), "trained": crossings(5, 5)},
                          {"linearized": crossings(4, 45), "trained": crossings(5, 5)}),),
    ),
    "gap_not_reduced": Planted(
        holds={"rows": gap_rows([0.97, 1.04, 0.95, 1.02, 0.99, 1.05, 0.96, 1.01, 0.98]), "epochs": 60},
        fails={"rows": gap_rows(0.5), "epochs": 60},
        budget_variants=(({"rows": gap_rows([0.97, 1.04, 0.95, 1.02, 0.99, 1.05, 0.96, 1.01, 0.98] * 2, n=18),
                           "epochs": 120},
                          {"rows": gap_rows(0.5, n=18), "epochs": 120}),),
    ),
}
