"""[P35] ToaSt: Token Channel Selection and Structured Pruning for Efficient ViT

What it is: ToaSt compresses a vision transformer with one tool per half of a block. In multi-head self-attention,
Structured Coupled Weight Pruning (SCWP) removes dimensions of every head in coupled pairs: a Q/K dimension leaves
W_Q and W_K together, a V/O dimension leaves W_V's rows and W_O's columns together, scored on the concatenations
[Q_h | K_h] and [V_h | O_hᵀ] by the distance of each row to the coordinate-wise median. Every head keeps the same
count, the masks stay through fine-tuning, and the surviving weights re-pack into smaller dense projections. In the
FFN (most of the FLOPs), Token Channel Selection (TCS) is training-free: at every forward pass it keeps the input
channels of fc1 and/or fc2 whose importance, the class token's magnitude plus the patches' magnitudes weighted by
the class token's attention, is highest. Both work on transformers' ``ViTForImageClassification``/``ViTModel`` and
on :class:`PlainViT` (plain torch, timm's attribute names); :func:`vit_macs` counts the MACs of any schedule.

Claims (words, bars and basis in paper.toml; measured in ``_checks*.py``, judged in ``_rules.py``):
  1. ``tcs_training_free`` — TCS filters redundant FFN channels without training (Abstract): at fc2 ratio 0.5 it
     costs at most 1 pt, and random or weight-magnitude subsets of the same size cost more.
  2. ``coupled_pruning`` — coupled head-wise pruning is the robust choice (Abstract): after equal fine-tuning, coupled
     gm is non-inferior to averaged, single-sided and independent (untied) scoring.
  3. ``accuracy_efficiency`` — large FLOPs reductions at kept accuracy (Abstract: ViT-MAE-H +1.64 pts at −39.4%):
     at least 30% fewer MACs within 1.5 pt of a dense model given the same extra fine-tuning epochs.
  4. ``throughput`` — DeiT-S at 2.7 GFLOPs runs 2.01x faster on an H100 (results table); a GPU claim, timed.

Deviations / reconstructions (the seed holds only the abstract; the formulas follow the authors' released code):
  1. TCS's fc1 selection is made on fc1's own input (after the LayerNorm) and leaves the residual alone; the release
     selects on the pre-norm residual and gates the residual too, which makes its masked and dense forms differ.
     Here the masked and gathered forms agree exactly. Patches for the score are sampled without replacement.
  2. The 'independent' coupling (Q, K, V, Oᵀ scored and masked apart) is ours: the uncoupled reference.
  3. Scale: a 4-block ViT of width 64 trained here on scikit-learn's digits (8×8, 17 tokens) stands in for
     DeiT/MAE on ImageNet; the throughput claim uses the real DeiT-S shape with random weights.
"""

from icml26.papers.toast._arch import vit_blocks
from icml26.papers.toast._data import digits_split
from icml26.papers.toast._importance import COUPLINGS, SCORES, HeadScores, head_importance
from icml26.papers.toast._macs import MacCount, ViTSpec, vit_macs, vit_spec
from icml26.papers.toast._plainvit import PlainViT, PlainViTConfig
from icml26.papers.toast._scwp import StructuredCoupledPruner
from icml26.papers.toast._tcs import ToastHandle, apply_static_selection, apply_toast, channel_importance, kept_channels
from icml26.papers.toast._train import TrainSpec, accuracy, build_vit, fit, trained_vit

__all__ = ["COUPLINGS", "SCORES", "HeadScores", "MacCount", "PlainViT", "PlainViTConfig", "StructuredCoupledPruner",
           "ToastHandle", "TrainSpec", "ViTSpec", "accuracy", "apply_static_selection", "apply_toast", "build_vit",
           "channel_importance", "digits_split", "fit", "head_importance", "kept_channels", "trained_vit",
           "vit_blocks", "vit_macs", "vit_spec"]
