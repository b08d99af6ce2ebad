"""Planted rows on both sides of each [P11] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def acc_rows(correct_ref: list[int], correct_ptq: list[int], n: int = 10) -> list[dict]:
    return [{"doc": d, "n_items": n, "correct_ref": a, "correct_ptq": b} for d, (a, b) in
            enumerate(zip(correct_ref, correct_ptq))]


def bin_rows(lo: list[float], hi: list[float], n: int = 20) -> list[dict]:
    """Two bins per document: bin 0 (lowest entropy) with mean log ρ ``lo[d]``, bin 1 with ``hi[d]``."""
    out = []
    for d, (a, b) in enumerate(zip(lo, hi)):
        out.append({"doc": d, "bin": 0, "n": n, "log_rho": a, "kl": 0.01, "flip": 0.0})
        out.append({"doc": d, "bin": 1, "n": n, "log_rho": b, "kl": 0.05, "flip": 0.1})
    return out


def kv_rows(ratios: list[float], docs: int = 5, layers: int = 3) -> list[dict]:
    """``ratios[d]``: Q-FIT / plain MSE in every layer of document d."""
    return [{"doc": d, "layer": k, "mse_plain": 1.0 + k, "mse_qfit": ratios[d] * (1.0 + k)}
            for d in range(docs) for k in range(layers)]


def method_rows(acc: dict[str, list[float]]) -> list[dict]:
    return [{"seed": s, "method": m, "accuracy": a, "sequences": 100} for m, v in acc.items() for s, a in enumerate(v)]


def _methods(ft, ft_ptq, qat, reqat):
    return {"rows": method_rows({"ft": ft, "ft_ptq": ft_ptq, "qat": qat, "reqat": reqat})}


FT = [0.80, 0.82, 0.81]
PLANTED = {
    "fp4_degrades": Planted(
        holds={"rows": acc_rows([8, 9, 8, 9, 8], [2, 3, 2, 1, 3])},
        fails={"rows": acc_rows([8, 9, 8, 9, 8], [8, 9, 8, 9, 8])},
        budget_variants=((
            {"rows": acc_rows([8, 9, 8, 9, 8] * 4, [2, 3, 2, 1, 3] * 4)},
            {"rows": acc_rows([8, 9, 8, 9, 8] * 4, [8, 9, 8, 9, 8] * 4)}),),
    ),
    "low_entropy_failures": Planted(
        holds={"rows": bin_rows([3.0, 2.5, 3.2, 2.8], [0.1, 0.05, 0.1, 0.2])},
        fails={"rows": bin_rows([0.1, 0.2, 0.1, 0.15], [0.1, 0.05, 0.1, 0.2])},
        budget_variants=((
            {"rows": bin_rows([3.0, 2.5, 3.2, 2.8] * 3, [0.1, 0.05, 0.1, 0.2] * 3)},
            {"rows": bin_rows([0.1, 0.2, 0.1, 0.15] * 3, [0.1, 0.05, 0.1, 0.2] * 3)}),),
    ),
    "qfit_kv_error": Planted(
        holds={"rows": kv_rows([0.5, 0.6, 0.55, 0.5, 0.52])},
        fails={"rows": kv_rows([1.0, 1.05, 0.98, 1.02, 1.0])},
        budget_variants=((
            {"rows": kv_rows([0.5, 0.6, 0.55, 0.5, 0.52] * 2, docs=10)},
            {"rows": kv_rows([1.0, 1.05, 0.98, 1.02, 1.0] * 2, docs=10)}),),
    ),
    "ptq_degrades": Planted(
        holds=_methods(FT, [0.50, 0.55, 0.52], [0.7, 0.7, 0.7], [0.8, 0.8, 0.8]),
        fails=_methods(FT, [0.79, 0.81, 0.80], [0.7, 0.7, 0.7], [0.8, 0.8, 0.8]),
        budget_variants=((
            _methods(FT * 2, [0.50, 0.55, 0.52] * 2, [0.7] * 6, [0.8] * 6),
            _methods(FT * 2, [0.79, 0.81, 0.80] * 2, [0.7] * 6, [0.8] * 6)),),
    ),
    "reqat_recovers": Planted(
        holds=_methods(FT, [0.5] * 3, [0.70, 0.72, 0.71], [0.81, 0.83, 0.82]),
        fails=_methods(FT, [0.5] * 3, [0.70, 0.72, 0.71], [0.70, 0.71, 0.72]),
        budget_variants=((
            _methods(FT * 2, [0.5] * 6, [0.70, 0.72, 0.71] * 2, [0.81, 0.83, 0.82] * 2),
            _methods(FT * 2, [0.5] * 6, [0.70, 0.72, 0.71] * 2, [0.70, 0.71, 0.72] * 2)),),
    ),
    "surpasses_ft": Planted(
        holds=_methods(FT, [0.5] * 3, [0.7] * 3, [0.85, 0.86, 0.84]),
        fails=_methods(FT, [0.5] * 3, [0.7] * 3, [0.75, 0.76, 0.74]),
        budget_variants=((
            _methods(FT * 2, [0.5] * 6, [0.7] * 6, [0.85, 0.86, 0.84] * 2),
            _methods(FT * 2, [0.5] * 6, [0.7] * 6, [0.75, 0.76, 0.74] * 2)),),
    ),
}
