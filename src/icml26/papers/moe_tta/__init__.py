"""[P34] Rewiring Experts on the Fly: Continuous Rerouting for Better Online Adaptation in Mixture-of-Expert models

What it is: test-time adaptation of a mixture-of-experts LM without data. For selected MoE layers l ∈ 𝓛 an additive
vector δ^(l) ∈ R^E shifts the router logits, g_l(x) = TopK(softmax(W_r^(l) x + δ^(l))). Phase A (on the prompt, then
every M generated tokens): all weights frozen, minimise the context's own next-token cross-entropy plus λ‖δ‖² over δ
for a few Adam steps. Phase B: generate with the adapted router until the next phase A. 𝓛 is the set of layers
routing most confidently on the prompt (lowest routing entropy). Only E·|𝓛| numbers change; the model is untouched.

API: :class:`RouterBias` (hooks on transformers' OLMoE / Mixtral / Qwen2-MoE / Qwen3-MoE routers and on TinyGPT's
MoE; δ = 0 is bitwise the original model), :func:`select_layers`, :func:`adapt`, :func:`generate_with_rerouting`;
the baseline :func:`full_ttt`; the in-context tasks and the small OLMoE model trained on them.

Claims (words, bars and basis in paper.toml; measured in ``_checks*.py``, judged in ``_rules.py``):
  1. ``heldout_gain`` — rerouting lifts accuracy on held-out tasks (paper: HumanEval +5.5 % on OLMoE).
  2. ``confident_layers`` — δ on the high-confidence layers is at least as good as δ on every layer.
  3. ``full_ttt_overadapts`` — full-parameter TTT with the same steps over-adapts.
  4. ``switch_readaptation`` — periodic re-adaptation beats prefill-only adaptation after a mid-sequence task switch.
  5. ``overhead`` — per-token cost, against full-parameter TTT and plain decoding (timed).

Deviations / reconstructions (the abstract, a third-party summary of Fig. 1 and a survey note were available; no
paper text or code):
  1. The objective (mean next-token CE over the whole context + λ‖δ‖²), Adam with 10 steps, lr 0.1, λ = 1e-3, a
     re-fit every 32 generated tokens and the entropy rule for "high-confidence layers" are the notes' reading.
     δ warm-starts at each re-fit; a fresh Adam state per fit; layers are chosen once, on the prompt.
  2. No pretrained MoE installs offline: the claims run a 4-layer ``OlmoeForCausalLM`` (d = 48, 8 experts of width
     48, top-2, OLMoE's load-balancing loss at 0.01) trained here for 500 steps on single-digit in-context maps
     (modular shifts and seeded substitution ciphers), with held-out parameter values in place of HumanEval.
  3. The episodes are short (6 demonstrations, 8 queries), so the re-fit period is 8 context tokens there; the
     overhead claim keeps 32 generated tokens. One δ per episode, fitted in one batched pass (the per-episode
     objectives are summed, so each δ gets its own gradient; Adam is elementwise).
  4. The seeds resample evaluation episodes of one trained model (the training seed is part of the config).
  5. Not reproduced: the combination with self-consistency (majority vote over adapted samples), and the paper's
     models and benchmarks (OLMoE-1B-7B, DeepSeek-V2-Lite, HumanEval), which do not install offline.
"""

from icml26.papers.moe_tta._adapt import AdaptResult, adapt, context_ce, routing_stats, select_layers
from icml26.papers.moe_tta._baselines import full_ttt, generate_with_full_ttt
from icml26.papers.moe_tta._generate import ReroutedGeneration, generate_with_rerouting
from icml26.papers.moe_tta._model import build_olmoe, trained_olmoe
from icml26.papers.moe_tta._routers import SUPPORTED_ROUTERS, MoELayer, RouterBias, moe_layers
from icml26.papers.moe_tta._tasks import Task, TaskSplit, make_sequences, make_switch_sequences, task_split, task_table

__all__ = [
    "SUPPORTED_ROUTERS",
    "AdaptResult",
    "MoELayer",
    "ReroutedGeneration",
    "RouterBias",
    "Task",
    "TaskSplit",
    "adapt",
    "build_olmoe",
    "context_ce",
    "full_ttt",
    "generate_with_full_ttt",
    "generate_with_rerouting",
    "make_sequences",
    "make_switch_sequences",
    "moe_layers",
    "routing_stats",
    "select_layers",
    "task_split",
    "task_table",
    "trained_olmoe",
]
