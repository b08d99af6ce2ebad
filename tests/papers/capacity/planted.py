"""Planted measurements on both sides of each [P01] bar (used by test_rules.py and the conformance test)."""

from icml26.common.stats import Estimate
from support.planted import Planted

SIZES = ("L1d8", "L1d12", "L1d16")
NS = (16, 64, 256, 1024)


def plateau_rows(n_seeds: int = 3, *, ratio: float = 1.0, on_plateau: bool = True, sizes=SIZES) -> list[dict]:
    """A plateau per (size, seed) with mem(N_max)/mem(N_prev) = ``ratio`` (± 1 % across seeds)."""
    return [{"size": z, "seed": s, "last_ratio": ratio * (1 + 0.01 * (s % 3 - 1)), "on_plateau": on_plateau}
            for z in sizes for s in range(n_seeds)]


def seed_rows(key: str, values: list[float], n_seeds: int = 3, *, jitter: float = 0.0, ns=NS) -> list[dict]:
    """A row per (seed, N): ``key`` = ``values[i]`` + ``jitter`` · (seed − 1)."""
    return [{"seed": s, "n_sequences": n, key: v + jitter * (s - 1)} for s in range(n_seeds)
            for n, v in zip(ns, values)]


def _fit(alpha: Estimate, n_seeds: int = 3, r2: float = 0.99, slope: float = 1.0) -> dict:
    return {"plateaus": plateau_rows(n_seeds), "alpha": alpha, "r2": r2, "slope": slope}


AT_PAPER = Estimate(3.6, 3.45, 3.75)
OURS_SMALL = Estimate(2.07, 2.06, 2.09)  # the small run: proportional (R² 0.999, slope 0.98), far below the band

PLANTED = {
    "bits_per_param": Planted(
        holds=_fit(AT_PAPER),
        fails=_fit(OURS_SMALL, r2=0.999, slope=0.98),
        budget_variants=((_fit(AT_PAPER, 6), _fit(OURS_SMALL, 6, r2=0.999, slope=0.98)),),
    ),
    "rise_then_fall": Planted(
        holds={"rows": seed_rows("mem_bits", [100, 400, 300, 100], jitter=5)},
        fails={"rows": seed_rows("mem_bits", [100, 200, 300, 400], jitter=5)},
        budget_variants=((
            {"rows": seed_rows("mem_bits", [100, 400, 300, 100], 6, jitter=2)},
            {"rows": seed_rows("mem_bits", [100, 200, 300, 400], 6, jitter=2)}),),
    ),
    "mia_to_chance": Planted(
        holds={"rows": seed_rows("mia_auc", [1.0, 0.9, 0.7, 0.52], jitter=0.01)},
        fails={"rows": seed_rows("mia_auc", [0.9, 0.88, 0.87, 0.86], jitter=0.01)},
        budget_variants=((
            {"rows": seed_rows("mia_auc", [1.0, 0.9, 0.7, 0.52], 6, jitter=0.004)},
            {"rows": seed_rows("mia_auc", [0.9, 0.88, 0.87, 0.86], 6, jitter=0.004)}),),
    ),
}
