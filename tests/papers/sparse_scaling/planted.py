"""Planted rows on both sides of each [P37] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def law_rows(errors: list[float], decimals: int = 4) -> list[dict]:
    """Quoted numbers 2.8 + i·0.01 with ours off by ``errors[i]``."""
    return [{"quantity": f"q{i}", "quoted": 2.8 + 0.01 * i, "decimals": decimals, "ours": 2.8 + 0.01 * i + e,
             "source": "planted", "derived": i % 2 == 1} for i, e in enumerate(errors)]


def fit_rows(ratios: list[float], dense: float = 4.0, at_bound: tuple[int, ...] = (), sparse: float = 0.5) -> list[dict]:
    """Per seed i: R_D*(1) = dense, R_D*(sparse) = dense · ratios[i]; seeds in ``at_bound`` hit the half-life bound."""
    rows = []
    for i, r in enumerate(ratios):
        rows.append({"seed": i, "density": 1.0, "R_D_star": dense, "at_bound": i in at_bound})
        rows.append({"seed": i, "density": sparse, "R_D_star": dense * r, "at_bound": False})
    return rows


def slice_rows(sparsities: list[float], extra: float | None = 0.25) -> list[dict]:
    rows = [{"slice": f"fixed data U={u:g}", "sparsity": s, "judged": True}
            for u, s in zip((1.3e9, 1.3e10, 1.3e11), sparsities)]
    if extra is not None:
        rows.append({"slice": "fixed size (notes)", "sparsity": extra, "judged": False})
    return rows


PLANTED = {
    "law_values": Planted(
        holds={"rows": law_rows([0.0, 2e-5, -4e-5])},
        fails={"rows": law_rows([0.0, 2e-5, 3e-3])},
        budget_variants=((
            {"rows": law_rows([1e-5] * 23)},
            {"rows": law_rows([1e-5] * 22 + [-1e-3])}),),
    ),
    "delayed_saturation": Planted(
        holds={"rows": fit_rows([1.5, 1.6, 1.4]), "sparse_density": 0.5},
        fails={"rows": fit_rows([0.8, 0.9, 0.7]), "sparse_density": 0.5},
        budget_variants=((
            {"rows": fit_rows([1.5, 1.6, 1.4, 1.55, 1.45]), "sparse_density": 0.5},
            {"rows": fit_rows([0.8, 0.9, 0.7, 0.85, 0.95]), "sparse_density": 0.5}),),
    ),
    "loss_optimal_sparsity": Planted(
        holds={"rows": slice_rows([0.446, 0.446, 0.446])},
        fails={"rows": slice_rows([0.25, 0.446, 0.446])},
        budget_variants=((
            {"rows": slice_rows([0.5, 0.45, 0.55], extra=None)},
            {"rows": slice_rows([0.7, 0.75, 0.8], extra=None)}),),
    ),
}
