"""Planted episode tables on both sides of each [P34] bar (used by test_rules.py and the conformance test)."""

import numpy as np

from support.planted import Planted


def episode_rows(n_seeds: int, per_seed: int, split: str = "held_out", **cond) -> list[dict]:
    """Rows whose condition ``k`` takes the values ``cond[k](i)`` for episode i (the same in every seed)."""
    return [{"seed": s, "episode": i, "split": split, **{k: float(f(i)) for k, f in cond.items()}}
            for s in range(n_seeds) for i in range(per_seed)]


def _alt(lo: float, hi: float):
    return lambda i: lo if i % 2 else hi


def _const(v: float):
    return lambda i: v


def heldout(gain: float, n_seeds: int = 3, per_seed: int = 40, spread: float = 0.02) -> dict:
    """No adaptation at 0.5, rerouting at 0.5 + gain (± spread), all layers at 0.5 + gain/2."""
    rows = episode_rows(n_seeds, per_seed, none=_const(0.5), selected=_alt(0.5 + gain - spread, 0.5 + gain + spread),
                        all=_const(0.5 + gain / 2))
    rows += episode_rows(n_seeds, 4, split="train", none=_const(0.9), selected=_const(0.9), all=_const(0.9))
    return {"rows": rows}


def layers(diff: float, n_seeds: int = 3, per_seed: int = 40, ref: float = 0.2, ref_spread: float = 0.0) -> dict:
    """All layers at 0.6 (± ref_spread), no adaptation at 0.6 − ref, the selected layers at all + diff (± 0.01)."""
    return {"rows": episode_rows(n_seeds, per_seed, none=_const(0.6 - ref),
                                 selected=_alt(0.6 + diff - 0.01, 0.6 + diff + 0.01),
                                 all=_alt(0.6 - ref_spread, 0.6 + ref_spread))}


def ttt(acc_change: float, ce_change: float, n_seeds: int = 3, per_seed: int = 20) -> dict:
    return {"rows": episode_rows(n_seeds, per_seed, split="train", none=_const(0.9), router=_const(0.9),
                                 full=_alt(0.9 + acc_change - 0.02, 0.9 + acc_change + 0.02), ce_none=_const(1.5),
                                 ce_router=_const(1.4), ce_full=_alt(1.4 + ce_change - 0.01, 1.4 + ce_change + 0.01))}


def switch(gain: float, n_seeds: int = 3, per_seed: int = 40) -> dict:
    return {"rows": episode_rows(n_seeds, per_seed, split="switch", none=_const(0.3), prefill=_const(0.4),
                                 continuous=_alt(0.4 + gain - 0.02, 0.4 + gain + 0.02))}


def overhead(ratio: float, reps: int = 6) -> dict:
    g = np.random.default_rng(0)
    full = 0.01 * (1 + 0.05 * g.standard_normal(reps))
    return {"rows": [{"rep": r, "plain_s": 0.001, "reroute_s": float(full[r] * ratio * (1 + 0.01 * (-1) ** r)),
                      "full_s": float(full[r])} for r in range(reps)]}


PLANTED = {
    "heldout_gain": Planted(holds=heldout(0.10), fails=heldout(-0.05),
                            budget_variants=((heldout(0.10, n_seeds=5, per_seed=100),
                                              heldout(-0.05, n_seeds=5, per_seed=100)),)),
    "confident_layers": Planted(holds=layers(0.0), fails=layers(-0.08),
                                budget_variants=((layers(0.0, n_seeds=5, per_seed=200),
                                                  layers(-0.08, n_seeds=5, per_seed=200)),)),
    "full_ttt_overadapts": Planted(holds=ttt(-0.2, -0.3), fails=ttt(0.05, -0.3),
                                   budget_variants=((ttt(-0.2, -0.3, per_seed=60), ttt(-0.2, 0.2, per_seed=60)),)),
    "switch_readaptation": Planted(holds=switch(0.1), fails=switch(-0.1),
                                   budget_variants=((switch(0.1, n_seeds=5, per_seed=200),
                                                     switch(-0.1, n_seeds=5, per_seed=200)),)),
    "overhead": Planted(holds=overhead(0.6), fails=overhead(1.5),
                        budget_variants=((overhead(0.6, reps=20), overhead(1.5, reps=20)),)),
}
