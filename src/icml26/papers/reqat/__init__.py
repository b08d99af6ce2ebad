"""[P11] ReQAT: Achieving Full-Precision Reasoning Accuracy with 4-bit Floating-Point QAT

What it is: FP4 quantisation-aware training for reasoning models with weights, linear-layer inputs and the KV cache
all in 4-bit floating point (W4A4KV4). Formats: MXFP4 (E2M1 elements, blocks of 32, an E8M0 power-of-two scale) and
NVFP4 (E2M1, blocks of 16, an E4M3 scale and a float32 global scale), with the K and V caches in E1M2. ReQAT is
  (i) TAQ, trace-aligned QAT: full-precision fine-tuning on D_FT, then fake-quant QAT (straight-through estimator) on
      D_TAQ ⊆ D_FT, the same traces again, at the same total budget;
  (ii) SEM, selective entropy minimisation: L = L_SFT + λ (1/T) Σ_t w_t H_t with
      w_t = max(0, 1 − (H_t − H_min)/(τ − H_min + ε)), τ the 75th percentile of the batch's entropies, λ = 0.1;
  (iii) Q-FIT: Q̃ = R(Q ⊙ s), K̃ = R(K ⊘ s) − m with s = s0^α_s paired over RoPE's rotation pairs and
      m = α_m · mean(K̃), (α_s, α_m) by a per-layer grid search on the BF16-vs-KV4 attention-score MSE; s folds into
      W_Q/W_K, m is subtracted before the KV quantiser (softmax is shift-invariant).
API: ``fp4_quantize`` / ``fake_quant`` (exact grids, ties to even), ``quantize_model(model, scheme, *, weights,
activations, kv)`` for transformers Llama-class models and TinyGPT, ``qfit``, ``kv_score_error``, ``sem_loss``,
``sem_weights``, and the tiny arithmetic-trace task.

Claims (words, bars and basis in paper.toml; measured in ``_checks_real.py`` / ``_checks_train.py``):
  1. ``fp4_degrades`` — W4A4KV4 PTQ degrades accuracy (SmolLM2-135M, few-shot addition).
  2. ``low_entropy_failures`` — FP4 failures concentrate on low-entropy tokens (tail-mass ratio by entropy).
  3. ``qfit_kv_error`` — Q-FIT lowers the KV4 attention-score error (held-out text, SmolLM2-135M).
  4. ``ptq_degrades`` — on the tiny reasoning model, FT + PTQ falls well below FT.
  5. ``reqat_recovers`` — ReQAT ≥ FT − 1 point and ≥ QAT + 2 points at an equal budget.
  6. ``surpasses_ft`` — ReQAT > FT (the paper's own Table 2 has R1-Llama-8B below BF16 FT).

Reconstructed or chosen here (the method follows the notes' reading of the paper and its code):
  1. NVFP4's global scale: the whole tensor's amax for weights, each token's for activations and K/V (a dynamic
     stand-in for the calibrated static activation scale of a deployment); E1M2 uses bias 1 (max 1.75).
  2. Attention scores, softmax and P·V stay in full precision; the output head and embeddings are not quantised.
  3. MXFP4's block-wise Hadamard rotation in Q-FIT is not implemented; the claims use NVFP4 (the paper's main format).
  4. The tiny task (sums of 3-5 one-digit terms written as step-by-step traces) and its sizes are ours; the base
     model is pretrained on traces with 30 % corrupted steps, one base per run; budgets are equal in optimiser steps.
  5. Real-model accuracy is greedy and teacher-forced per line; the tiny model's answers are sampled (T = 0.6,
     top-p 0.95).
"""

from icml26.papers.reqat._fakequant import MXFP4, NONE, NVFP4, SCHEMES, FP4Scheme, fake_quant, fp4_quantize
from icml26.papers.reqat._formats import E1M2, E2M1, E4M3, MiniFloat, round_to_format
from icml26.papers.reqat._model import QuantizedModel, quantize_model
from icml26.papers.reqat._qfit import QFitResult, kv_score_error, qfit
from icml26.papers.reqat._sem import sem_loss, sem_weights, token_entropy
from icml26.papers.reqat._tiny import accuracy, tiny_reasoner
from icml26.papers.reqat._traces import Problem, make_problems, traces_dataset

__all__ = [
    "E1M2",
    "E2M1",
    "E4M3",
    "MXFP4",
    "NONE",
    "NVFP4",
    "SCHEMES",
    "FP4Scheme",
    "MiniFloat",
    "Problem",
    "QFitResult",
    "QuantizedModel",
    "accuracy",
    "fake_quant",
    "fp4_quantize",
    "kv_score_error",
    "make_problems",
    "qfit",
    "quantize_model",
    "round_to_format",
    "sem_loss",
    "sem_weights",
    "tiny_reasoner",
    "token_entropy",
    "traces_dataset",
]
