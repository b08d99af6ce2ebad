"""[P07] A Constrained Optimization Perspective of Unrolled Transformers

What it is: a transformer (or any stack of L blocks) is trained like a descent algorithm. A readout D is applied to
every intermediate state z_l, giving per-layer losses ℓ_l = E[ℓ(D(z_l), y)], and ERM's min ℓ_L is replaced by

    min_θ ℓ_L   s.t.   ℓ_l ≤ (1 − ε) ℓ_{l−1} + u_l,   l = 1..L,

solved by stochastic primal-dual steps: θ descends the Lagrangian ℓ̂_L + Σ λ_l (ℓ̂_l − (1 − ε) ℓ̂_{l−1} − u_l), the
duals ascend λ_l ← [λ_l + η_λ g_l]₊, and optional resilient slacks u_l ← [u_l − η_u (ρ u_l − λ_l)]₊ relax constraints
that are too costly. :class:`DescentConstrainedTrainer` runs it (and the ERM and deep-supervision baselines) on any
:class:`LayerwiseModel`: a TinyGPT (:class:`TinyGPTLayers`, hooks on its blocks), a transformers encoder or decoder
(:class:`EncoderLayers`: BERT's ``hidden_states``, Llama's residual stream), LISTA (:class:`LISTA`), or your own.

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``):
  1. ``monotone_descent`` — intermediate representations decrease the loss monotonically across layers (Abstract).
  2. ``in_distribution`` — in-distribution performance stays competitive with ERM (Abstract).
  3. ``perturbation_robustness`` — stronger robustness to perturbations (Abstract).
  4. ``ood_generalization`` — higher out-of-distribution generalization (Abstract).

Deviations / reconstructions (the abstract and the authors' earlier constrained unrolled networks; no paper text
or code):
  1. The constraint ℓ_l ≤ (1 − ε) ℓ_{l−1} on the expected readout loss, the Lagrangian, the projected dual ascent
     and the resilient slack with cost (ρ/2) u² are reconstructed; the primal gradient flows through both ℓ_l and
     ℓ_{l−1} (so a constraint can also be met by a worse earlier layer). Duals and slacks update after the primal
     step, on the constraint values of the batch before that step; the slack with the updated λ. The claims run hard
     constraints (no slack), ε = 0.05, η_λ = 0.05 on every task (the notes' values), Adam for θ.
  2. One readout D is shared by all layers (a per-layer list of L + 1 readouts is accepted too); ERM trains D on
     z_L only and deep supervision minimises the mean of ℓ_1..ℓ_L.
  3. Tasks are small stand-ins (notes §4): 8-frame videos of a scikit-learn digit sliding 1 px/frame in N(0, 0.3²)
     noise, denoised by a randomly initialised 6-layer BERT (d = 64) read per frame; digit images as 8 row tokens,
     classified by a causal 4-layer TinyGPT (d = 32) read at the last token; LISTA with 10 layers on a known 20 × 50
     Gaussian dictionary, codes 10 % dense. Losses are NMSE (MSE over the training targets' mean square) and cross-
     entropy; metrics NMSE and accuracy.
  4. Perturbation: N(0, (0.5 · RMS)²) noise added to the state of layer L/2 (RMS per token), as in the predecessors'
     layer-output noise. Out of distribution: noise 0.5 and 2 px/frame; pixel noise 0.15 and a 1-px shift; 20 %
     dense codes and noise 0.05.
  5. The paper's scale (unrolled video-denoising transformers, pretrained text classifiers) is not run here; `full`
     runs the same stand-ins longer, on all training data and 10 seeds.
"""

from icml26.papers.descent_tf._descent import descent_pairs, resilient_equilibrium
from icml26.papers.descent_tf._layers import EncoderLayers, LayerwiseModel, TinyGPTLayers, TokenReadout, perturbed_state
from icml26.papers.descent_tf._lista import LISTA
from icml26.papers.descent_tf._models import bert_encoder, sequence_model
from icml26.papers.descent_tf._tasks import digit_rows, digits_split, gaussian_dictionary, moving_digits, sparse_codes
from icml26.papers.descent_tf._trainer import METHODS, DescentConstrainedTrainer, TrainHistory

__all__ = [
    "LISTA",
    "METHODS",
    "DescentConstrainedTrainer",
    "EncoderLayers",
    "LayerwiseModel",
    "TinyGPTLayers",
    "TokenReadout",
    "TrainHistory",
    "bert_encoder",
    "descent_pairs",
    "digit_rows",
    "digits_split",
    "gaussian_dictionary",
    "moving_digits",
    "perturbed_state",
    "resilient_equilibrium",
    "sequence_model",
    "sparse_codes",
]
