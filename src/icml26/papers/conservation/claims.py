"""The [P04] claims: configs per budget and the CLAIMS table (checks in ``_checks_model.py`` and ``_checks_exact.py``,
rules in ``_rules.py``). Models are float64 TinyGPTs or two-layer nets, and for ``llama_invariance_and_laws`` a float64
copy of a transformers Llama (a tiny random one at smoke, SmolLM2-135M at small)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.conservation._checks_exact import check_gelu_silu_no_law, check_sigmoid_gating_law
from icml26.papers.conservation._checks_llama import check_llama_invariance_and_laws
from icml26.papers.conservation._checks_model import (
    check_group_invariance,
    check_laws_orthogonal,
    check_sgd_drift_scaling,
)


@dataclass(frozen=True)
class ModelSize:
    """The float64 TinyGPTs of the model-level claims (matrices re-scaled to std ``init_std``)."""

    d_model: int = 16
    n_layer: int = 1
    init_std: float = 0.1


@dataclass(frozen=True)
class InvarianceConfig(ModelSize):
    spread: float = 0.5
    biases: tuple[bool, ...] = (False,)


@dataclass(frozen=True)
class OrthoConfig(ModelSize):
    n_probes: int = 4


@dataclass(frozen=True)
class DriftConfig(ModelSize):
    steps: int = 8  # >= 4: the k-slope needs three record points (k/4, k/2, k)
    taus: tuple[float, ...] = (2e-3, 4e-3, 8e-3)
    batch_size: int = 8
    n_batches: int = 4


@dataclass(frozen=True)
class LlamaCheckConfig:
    """``model``: ``"tiny"`` (a random 2-layer ``LlamaForCausalLM``, matrices std ``tiny_init_std``) or a name of
    :data:`icml26.common.models.CAUSAL_LMS`; ``n_tokens`` docstring tokens in rows of ``seq_len``; ``spread`` of the
    random group elements and controls; ``steps`` full-batch GD steps at each step size of ``taus``."""

    model: str = "tiny"
    n_tokens: int = 128
    seq_len: int = 64
    spread: float = 0.5
    tiny_init_std: float = 0.2
    steps: int = 4
    taus: tuple[float, ...] = (5e-4, 1e-3, 2e-3)


@dataclass(frozen=True)
class CorankConfig:
    widths: tuple[int, ...] = (2, 4)
    d: int = 3
    c: int = 2
    activations: tuple[str, ...] = ("gelu", "silu", "relu", "swiglu", "linear")


@dataclass(frozen=True)
class GatingConfig:
    n_random: int = 20
    d: int = 4
    n_experts: int = 3


CLAIMS = [
    Claim("group_invariance", check=check_group_invariance, budgets={
        "smoke": Budget(InvarianceConfig(), seeds=1, expected_s=2),
        "small": Budget(InvarianceConfig(d_model=32, n_layer=2, biases=(False, True)), seeds=3, expected_s=20),
    }),
    Claim("laws_orthogonal", check=check_laws_orthogonal, budgets={
        "smoke": Budget(OrthoConfig(), seeds=1, expected_s=2),
        "small": Budget(OrthoConfig(d_model=32, n_layer=2, n_probes=8), seeds=3, expected_s=30),
    }),
    Claim("sgd_drift_scaling", check=check_sgd_drift_scaling, budgets={
        "smoke": Budget(DriftConfig(), seeds=1, expected_s=3),
        "small": Budget(DriftConfig(d_model=32, n_layer=2, steps=120, taus=(1e-3, 2e-3, 4e-3, 8e-3)), seeds=3,
                        expected_s=150),
    }),
    Claim("llama_invariance_and_laws", check=check_llama_invariance_and_laws, budgets={
        "smoke": Budget(LlamaCheckConfig(), seeds=1, expected_s=3),
        "small": Budget(LlamaCheckConfig(model="smollm2-135m", n_tokens=256, seq_len=128), seeds=2, expected_s=240,
                        requires=("models",)),
    }),
    Claim("gelu_silu_no_law", check=check_gelu_silu_no_law, budgets={
        "smoke": Budget(CorankConfig(), seeds=1, expected_s=2),
        "small": Budget(CorankConfig(widths=(1, 2, 3, 4, 5, 6, 7, 8), d=4), seeds=3, expected_s=60),
    }),
    Claim("sigmoid_gating_law", check=check_sigmoid_gating_law, budgets={
        "smoke": Budget(GatingConfig(), seeds=1, expected_s=1),
        "small": Budget(GatingConfig(n_random=200), seeds=3, expected_s=10),
    }),
]
