"""[P27] ZeroUnlearn: Few-Shot Unlearning by Closed-Form Multiplicative Editing

What it is: ZeroUnlearn treats unlearning a few facts as model editing. For each forget prompt a value search finds
the residual-stream state z_new at the last edited layer that makes the model emit a neutral target (EOS), and a
second search at each edited layer's MLP down-projection finds the outputs Z_true that produce the true answer; the
span of Z_true is the sensitive subspace, and P = (1+ε)I − VVᵀ removes it. Each edited down-projection W (a few
consecutive middle layers) is then replaced by D W with the closed form
    D = P (Σ_VK + λW) Wᵀ [W (Σ_KK + λI) Wᵀ]⁻¹,
where Σ_VK, Σ_KK weigh the retain moments (λ_w E[vkᵀ], λ_w E[kkᵀ]) against the forget keys and their spread
neutral targets (λ_f); retained inputs keep W k up to the removal of the sensitive directions, forget inputs go to
the neutral state. A gradient variant (ZeroUnlearn-GD) learns an additive update restricted to the retain keys'
null space for larger forget sets. Everything takes a transformers Llama-style causal LM (``model.model.layers[i]
.mlp.down_proj``), so Llama-3.2-3B at the paper's layers 16-18 runs unchanged; the baselines (gradient ascent,
fine-tuning to EOS, MEMIT-to-EOS, AlphaEdit-to-EOS) edit the same down-projections.

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``):
  1. ``targeted_unlearning`` — forgotten facts' efficacy <= 5% and paraphrase generalisation <= 15% with a
     specificity drop <= 10 pts and perplexity +<= 5% (README table: 0.40 / 4.60, 19.60 -> 14.90, 12.88 -> 13.06).
  2. ``gradient_ascent_cost`` — gradient ascent reaches the same efficacy only at >= 2x perplexity (GA > 1000).
  3. ``projector_matters`` — without the orthogonal projector generalisation is worse (ablation 29.08 vs 27.52).

Reconstructed / deviations (the paper text was not reachable; the method follows the released code):
  1. Context templates are fixed prefixes (ROME/MEMIT sample them from the model), for determinism; ``small`` uses
     the bare prompt only and 12 steps per value search (the paper: 25), to fit a 2-core CPU.
  2. The rank of Z_true is cut at a numerical tolerance (the code keeps min(n, d) vectors: the same at full rank).
  3. Scale: SmolLM2-135M-Instruct (Q4_1 weights dequantised), layers 18-19 of 30, 20 facts per forget set and 200
     specificity facts, drawn subject-disjoint from the facts it answers in a shipped list of 1118, retain moments
     from stdlib docstrings plus sentences of 100 further known facts (a third pool), stand in for Llama-3.2-3B, MCF/ZsRE and Wikipedia; smoke runs use a tiny Llama
     trained here on made-up facts whose prompts end at the subject.

What we found at ``small`` (README): every method forgets (efficacy <= 3.3%), but every method also removes most of
the other known facts (ZeroUnlearn keeps 25.8% of them, without P 40.7%), while the docstring perplexity moves by
under 3% (a likely cause, not tested here: our retain text holds no factual statements; the paper's Wikipedia does).
"""

from icml26.papers.zerounlearn._algebra import (
    alphaedit_delta,
    closed_form_edit,
    memit_delta,
    null_space_basis,
    null_space_projector,
    sensitive_projector,
)
from icml26.papers.zerounlearn._baselines import alphaedit_eos, finetune_eos, gradient_ascent, memit_eos
from icml26.papers.zerounlearn._corpus import HELDOUT_MODULES, RETAIN_MODULES, docstrings, passages
from icml26.papers.zerounlearn._edit import UnlearnResult, zero_unlearn, zero_unlearn_gd
from icml26.papers.zerounlearn._eval import knows
from icml26.papers.zerounlearn._experiment import EditConfig, edit_rows
from icml26.papers.zerounlearn._factlist import RELATIONS, candidate_triples
from icml26.papers.zerounlearn._prompts import DEFAULT_CONTEXTS, Fact, Prompts, make_prompts
from icml26.papers.zerounlearn._stats import RetainStats, forget_keys, retain_moments, retain_statistics
from icml26.papers.zerounlearn._tiny import TinySpec, tiny_facts, tiny_model
from icml26.papers.zerounlearn._z import ZResult, compute_z

__all__ = ["DEFAULT_CONTEXTS", "HELDOUT_MODULES", "RELATIONS", "RETAIN_MODULES", "EditConfig", "Fact", "Prompts",
           "RetainStats", "TinySpec", "UnlearnResult", "ZResult", "alphaedit_delta", "alphaedit_eos",
           "candidate_triples", "closed_form_edit", "compute_z", "docstrings", "edit_rows", "finetune_eos",
           "forget_keys", "gradient_ascent", "knows", "make_prompts", "memit_delta", "memit_eos", "null_space_basis",
           "null_space_projector", "passages", "retain_moments", "retain_statistics", "sensitive_projector",
           "tiny_facts", "tiny_model", "zero_unlearn", "zero_unlearn_gd"]
