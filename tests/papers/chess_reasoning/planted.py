"""Planted run tables on both sides of each [P20] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def rows(values: dict[str, dict[str, list[float]]]) -> list[dict]:
    """One row per (arm, seed): ``values[arm][metric][seed]``."""
    out = []
    for arm, metrics in values.items():
        n = len(next(iter(metrics.values())))
        for s in range(n):
            out.append({"arm": arm, "seed": s, **{m: v[s] for m, v in metrics.items()}})
    return out


def both(metrics_bm: dict[str, list[float]], metrics_bl: dict[str, list[float]]) -> dict:
    return {"rows": rows({"bestmove": metrics_bm, "bestline": metrics_bl})}


def _same(metrics: dict[str, list[float]]) -> dict:
    return both(metrics, metrics)


def _more(d: dict[str, list[float]], k: int = 2) -> dict[str, list[float]]:
    """The same values repeated (more seeds): a bar that moves with the budget would show up."""
    return {m: v * k for m, v in d.items()}


_Q_UP = {"sft_quality": [0.30, 0.32, 0.28], "rl_quality": [0.50, 0.55, 0.52]}
_Q_DOWN = {"sft_quality": [0.50, 0.55, 0.52], "rl_quality": [0.30, 0.32, 0.28]}
_H_DOWN = {"sft_any_illegal": [0.40, 0.35, 0.45], "rl_any_illegal": [0.10, 0.12, 0.08]}
_H_UP = {"sft_any_illegal": [0.10, 0.12, 0.08], "rl_any_illegal": [0.40, 0.35, 0.45]}
_F_BM = {"rl_faithful": [0.10, 0.20, 0.15]}
_F_BL_OK = {"rl_faithful": [0.95, 0.90, 0.92]}
_F_BL_BAD = {"rl_faithful": [0.20, 0.25, 0.30]}
_FLOOR = {"random_quality": [0.40, 0.40, 0.40]}  # a random legal move's quality: both arms play above it
_C_BM = {"rl_quality": [0.50, 0.52, 0.48], **_FLOOR}
_C_BL_OK = {"rl_quality": [0.51, 0.50, 0.49], **_FLOOR}
_C_BL_BAD = {"rl_quality": [0.30, 0.28, 0.33], **_FLOOR}
_J_BM = {"reward_jitter": [0.040, 0.050, 0.045]}
_J_BL_OK = {"reward_jitter": [0.020, 0.025, 0.022]}
_J_BL_BAD = {"reward_jitter": [0.080, 0.090, 0.085]}
_S_OK = {"vs_random_score": [0.80, 0.85, 0.90], "vs_random_replaced": [0.10, 0.20, 0.15]}
_S_BAD = {"vs_random_score": [0.20, 0.25, 0.30], "vs_random_replaced": [0.10, 0.20, 0.15]}

PLANTED = {
    "rl_raises_quality": Planted(holds=_same(_Q_UP), fails=_same(_Q_DOWN),
                                 budget_variants=((_same(_more(_Q_UP)), _same(_more(_Q_DOWN))),)),
    "rl_reduces_hallucination": Planted(holds=_same(_H_DOWN), fails=_same(_H_UP),
                                        budget_variants=((_same(_more(_H_DOWN)), _same(_more(_H_UP))),)),
    "bestline_faithful": Planted(holds=both(_F_BM, _F_BL_OK), fails=both(_F_BM, _F_BL_BAD),
                                 budget_variants=((both(_more(_F_BM), _more(_F_BL_OK)),
                                                   both(_more(_F_BM), _more(_F_BL_BAD))),)),
    "comparable_quality": Planted(holds=both(_C_BM, _C_BL_OK), fails=both(_C_BM, _C_BL_BAD),
                                  budget_variants=((both(_more(_C_BM), _more(_C_BL_OK)),
                                                    both(_more(_C_BM), _more(_C_BL_BAD))),)),
    "bestline_stabler_rl": Planted(holds=both(_J_BM, _J_BL_OK), fails=both(_J_BM, _J_BL_BAD),
                                   budget_variants=((both(_more(_J_BM), _more(_J_BL_OK)),
                                                     both(_more(_J_BM), _more(_J_BL_BAD))),)),
    "beats_random": Planted(holds=_same(_S_OK), fails=_same(_S_BAD),
                            budget_variants=((_same(_more(_S_OK)), _same(_more(_S_BAD))),)),
}
