"""[P01] How much do language models memorize?

(At ICML 2026 titled "How much *can* language models memorize?".)

What it is: memorisation measured as compression. A model θ codes a sequence x in H(x | θ) = −log2 p(x | θ) bits;
the *unintended memorisation* of x by a trained θ̂, relative to a reference θ that holds what generalises, is
mem_U(x) = max(0, H(x | θ) − H(x | θ̂)) bits, summed over a dataset. On uniform random tokens nothing generalises
(θ = uniform, H = S·log2 V), so mem(D) is the total information stored; as the dataset grows it plateaus at the
model's *capacity*, ≈ α·(parameters) with α ≈ 3.6 bits/param for GPT-style models. On a generalisable distribution
memorisation rises until the capacity fills, then falls as the model generalises, and loss-threshold membership
inference falls toward chance.

API: :func:`code_lengths`, :func:`unintended_memorization`, :func:`memorization_bits` (references:
:class:`UniformReference`, :class:`MarkovChain`, or a TinyGPT), :func:`make_model`, :func:`fit_to_plateau`
(:class:`TrainConfig`, stopping rule :func:`plateau_reached`), :func:`capacity_sweep` (-> :class:`CapacitySweep`: ``plateaus()``, ``fit()``),
:func:`fit_bits_per_param` (-> :class:`BitsPerParamFit`), :func:`membership_inference`
(-> :class:`MembershipInference`).

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``):
  1. ``bits_per_param`` — random tokens: memorisation plateaus at a capacity ∝ parameters, α ≈ 3.6 (Abstract, Sec. 5);
     basis ``scaled`` (1K-4K parameters against the paper's 500K-1.5B).
  2. ``rise_then_fall`` — generalisable data: unintended memorisation rises, then falls past capacity (Abstract, Sec. 6).
  3. ``mia_to_chance`` — loss-threshold membership inference falls toward chance as data/capacity grows (Sec. 6).
  Claims 2 and 3 share one Markov sweep (run group ``markov``); both are on basis ``reconstruction``.

Deviations from the paper:
  1. Scale: 0.3K-4K-parameter models (1 layer, d = 4-16, V = 8-16, S = 8-16) trained on CPU with AdamW, instead of
     500K-1.5B-parameter models trained for ~1e6 steps. "Trained to saturation" (``bits_per_param``) = the learning
     rate stepped down twice (x0.3) on train-loss plateaus, stop on the third; a plateau = < 0.5 % relative gain of
     the learnt bits over 500 steps, >= 100 epochs, cap 8000 steps (``claims.SATURATION_PROTOCOL``). Every parameter is
     counted (embeddings included), so the models are embedding-heavy.
  2. The generalisable distribution is a random order-1 Markov chain (Dirichlet rows) and the reference is the exact
     chain; the paper uses text and a larger model trained on more data as the reference.
  3. Sequence convention: the model has V + 1 ids, the last a begin-of-sequence marker, and codes every token with a
     softmax over the V data tokens (so x_1 is coded too and a zero-logit model costs exactly S·log2 V bits).
  4. Membership inference is reported as ROC AUC (threshold-free) and F1 at the median threshold; the paper's
     sigmoid scaling law of F1 in capacity/data is not fitted.
  5. The dataset sizes of the capacity sweep are fixed multiples (1x, 2x, 4x) of the paper's 3.6·P bits (chosen a
     priori); saturation = mem at 4x vs 2x within ±15 % (the reproduction notes' bar). The smoke budget uses 1x/2x.
"""

from icml26.papers.capacity._code import (
    MarkovChain,
    Reference,
    UniformReference,
    code_lengths,
    memorization_bits,
    unintended_memorization,
)
from icml26.papers.capacity._sweep import (
    BitsPerParamFit,
    CapacitySweep,
    MembershipInference,
    SweepPoint,
    capacity_sweep,
    fit_bits_per_param,
    membership_inference,
    run_point,
)
from icml26.papers.capacity._train import (
    TrainConfig,
    fit_to_plateau,
    make_model,
    plateau_reached,
)

__all__ = [
    "BitsPerParamFit",
    "CapacitySweep",
    "MarkovChain",
    "MembershipInference",
    "Reference",
    "SweepPoint",
    "TrainConfig",
    "UniformReference",
    "capacity_sweep",
    "code_lengths",
    "fit_bits_per_param",
    "fit_to_plateau",
    "make_model",
    "membership_inference",
    "memorization_bits",
    "plateau_reached",
    "run_point",
    "unintended_memorization",
]
