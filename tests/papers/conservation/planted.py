"""Planted rows on both sides of each [P04] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def invariance_rows(law: float = 1e-16, control: float = 4e-2, moved: float = 0.5, n: int = 3) -> list[dict]:
    laws = [{"kind": "law", "rel_change": law, "param_change": moved} for _ in range(n)]
    return laws + [{"kind": "control", "rel_change": control, "param_change": float("nan")} for _ in range(2)]


def ortho_rows(law: float = 1e-16, control: float = 0.1, n: int = 3) -> list[dict]:
    return ([{"kind": "law", "rate": law} for _ in range(n)]
            + [{"kind": "control", "rate": control} for _ in range(2)])


def drift_rows(law_tau=(1.95, 2.0, 2.05), law_k=(0.95, 1.0, 1.05), control_tau=(0.95, 1.0, 1.05),
               linear: float = 1e-16) -> list[dict]:
    rows = [{"kind": "law:attn.vo", "linear": False, "tau_slope": t, "k_slope": k, "drift": [1e-6]}
            for t, k in zip(law_tau, law_k)]
    rows += [{"kind": "control:mlp.gate", "linear": False, "tau_slope": t, "k_slope": 1.0, "drift": [1e-3]}
             for t in control_tau]
    return rows + [{"kind": "law:mlp.router", "linear": True, "drift": [linear, linear]}]


def llama(law: float = 1e-16, rate: float = 1e-16, control_rate: float = 0.1, law_tau=(1.95, 2.0, 2.05)) -> dict:
    """The three parts of llama_invariance_and_laws (no linear law in a Llama: the drift rows drop the router row)."""
    return {"invariance": invariance_rows(law=law), "rates": ortho_rows(law=rate, control=control_rate),
            "drift": [r for r in drift_rows(law_tau=law_tau) if not r["linear"]]}


def corank_rows(smooth_sv: float = 1e-3, smooth_corank: int = 0, control_ok: bool = True) -> list[dict]:
    rows = [{"activation": a, "corank": smooth_corank, "expected": 0, "min_sv_ratio": smooth_sv} for a in ("gelu", "silu")]
    return rows + [{"activation": "relu", "corank": 2 if control_ok else 1, "expected": 2, "min_sv_ratio": 1e-16}]


def gating(exact=(0.0, 0.0, 0.0), softmax=(0.0, 0.0, 0.0), float64=None) -> dict:
    return {"exact_rate": list(exact), "softmax_rate": list(softmax),
            "float64_rate": list(exact if float64 is None else float64)}


PLANTED = {
    "group_invariance": Planted(
        holds={"rows": invariance_rows()},
        fails={"rows": invariance_rows(law=1e-9)},
        budget_variants=(({"rows": invariance_rows(n=12)}, {"rows": invariance_rows(law=1e-9, n=12)}),),
    ),
    "laws_orthogonal": Planted(
        holds={"rows": ortho_rows()},
        fails={"rows": ortho_rows(law=1e-3)},
        budget_variants=(({"rows": ortho_rows(n=30)}, {"rows": ortho_rows(law=1e-3, n=30)}),),
    ),
    "sgd_drift_scaling": Planted(
        holds={"rows": drift_rows()},
        fails={"rows": drift_rows(law_tau=(0.95, 1.0, 1.05))},  # a "law" drifting O(τ): not conserved
        budget_variants=((
            {"rows": drift_rows(law_tau=(1.9, 2.0, 2.1) * 3, law_k=(0.9, 1.0, 1.1) * 3, control_tau=(1.0,) * 9)},
            {"rows": drift_rows(law_tau=(1.9, 2.0, 2.1) * 3, law_k=(1.9, 2.0, 2.1) * 3, control_tau=(1.0,) * 9)}),),
    ),
    "llama_invariance_and_laws": Planted(
        holds=llama(),
        fails=llama(law=1e-9),  # the "symmetry" changed the logits
    ),
    "gelu_silu_no_law": Planted(
        holds={"rows": corank_rows()},
        fails={"rows": corank_rows(smooth_sv=1e-14, smooth_corank=1)},
    ),
    "sigmoid_gating_law": Planted(
        holds=gating(),
        fails=gating(exact=(0.036, 0.0, 0.0)),
    ),
}
