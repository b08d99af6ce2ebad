"""Planted solve tables on both sides of each [P03] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

BASE = ("shgd", "scaledgd")
FAST, SLOW = [1.0, 1.1, 0.9], [2.0, 2.1, 1.9]


def rate_rows(iters_by_kappa: dict[float, list[int]], converged: bool = True) -> list[dict]:
    return [{"kappa": k, "seed": s, "iterations": it, "converged": converged}
            for k, its in iters_by_kappa.items() for s, it in enumerate(its)]


def grid_rows(its: dict, secs: dict, *, conv: dict | None = None, cell=(1.0, 0.3, False)) -> list[dict]:
    """One cell; ``its[m]`` an int (same every seed) and ``secs[m]`` a list of per-seed seconds."""
    conv = conv or {}
    k, p, d = cell
    return [{"kappa": k, "ratio": p, "damped": d, "seed": s, "method": m, "iterations": its[m],
             "converged": conv.get(m, True), "seconds": t, "error": 0.0}
            for m in its for s, t in enumerate(secs[m])]


def recovery_rows(success: dict, n_seeds: int, ratios=(0.1, 0.3)) -> list[dict]:
    """``success[m]`` is a function (ratio, seed) -> bool."""
    return [{"method": m, "ratio": p, "seed": s, "error": 0.0 if f(p, s) else 1.0}
            for m, f in success.items() for p in ratios for s in range(n_seeds)]


def _always(p, s):
    return True


def _never(p, s):
    return False


def _even(p, s):
    return s % 2 == 0


def _grid(its, secs):
    return {"rows": grid_rows(its, secs), "baselines": BASE, "judge_time": True}


PLANTED = {
    "kappa_free_rate": Planted(
        holds={"rows": rate_rows({1.0: [70, 72, 71], 1e4: [75, 74, 76]})},
        fails={"rows": rate_rows({1.0: [70, 72, 71], 1e4: [300, 310, 290]})},
        budget_variants=((
            {"rows": rate_rows({1.0: [70, 72, 71, 70, 73, 69], 1e4: [75, 74, 76, 75, 74, 77]})},
            {"rows": rate_rows({1.0: [70, 72, 71, 70, 73, 69], 1e4: [300, 310, 290, 305, 299, 301]})}),),
    ),
    "faster_than_baselines": Planted(
        holds=_grid({"jpgd": 50, "shgd": 500, "scaledgd": 50}, {"jpgd": FAST, "shgd": SLOW, "scaledgd": SLOW}),
        fails=_grid({"jpgd": 52, "shgd": 500, "scaledgd": 50}, {"jpgd": FAST, "shgd": SLOW, "scaledgd": SLOW}),
    ),
    "recovery_rate": Planted(
        holds={"rows": recovery_rows({"jpgd": _always, "shgd": _never, "scaledgd": _always}, 10),
               "baselines": BASE, "success": 1e-3},
        fails={"rows": recovery_rows({"jpgd": _even, "shgd": _never, "scaledgd": _always}, 10),
               "baselines": BASE, "success": 1e-3},
        budget_variants=((
            {"rows": recovery_rows({"jpgd": _always, "shgd": _never, "scaledgd": _always}, 40),
             "baselines": BASE, "success": 1e-3},
            {"rows": recovery_rows({"jpgd": _even, "shgd": _never, "scaledgd": _always}, 40),
             "baselines": BASE, "success": 1e-3}),),
    ),
}
