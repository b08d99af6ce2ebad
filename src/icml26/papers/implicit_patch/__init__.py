"""[P06] Equivalence of Context and Parameter Updates in Modern Transformer Blocks

What it is: the effect of a context C on a transformer's output at a query x can be moved into the weights: per query
token, a rank-1 patch of each MLP weight matrix plus a patch of the norm's scale (RMSNorm; scale and bias for
LayerNorm) makes the model on x alone compute exactly what it computes on C ‖ x. For one block ``y = u + P(MLP(v))``:
the input matrices get ``ΔW = W (v_C − v₀) v₀ᵀ / ‖v₀‖²`` (input controllability: the hidden state becomes the
with-context one) and the output matrix ``ΔW_out = (m* − W_out h_C) h_Cᵀ / ‖h_C‖²`` with the norm patch (output
controllability: the block's output becomes the with-context one, attention and skip path included). Across layers
the with-context residual stream is the target of each layer in turn (the constructive multi-layer algorithm).

API: :func:`context_patches` (the multi-layer algorithm) -> :class:`Patches`; :func:`apply_patches` (context
manager; hooks, the weights are never written); :func:`patched_logits`, :func:`with_context_logits`;
:func:`patched_generate` (greedy decoding with per-step patches); :func:`layer_patches` (one block);
:func:`solved_patches` (every matrix's rank-1 update solved afresh from with-context activations).
Works on :class:`icml26.common.nn.TinyGPT` in every block layout it offers. On transformers' Llama-class models
(``LlamaForCausalLM``, SmolLM2 among them): :func:`hf_context_patches`, :func:`hf_patched_logits`,
:func:`hf_with_context_logits`, :func:`hf_patched_generate` (forward hooks; the layers are never called by hand).

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``; basis
``reconstruction`` throughout, since the formulas are ours):
  1. ``gemma_equivalence`` — Gemma-style model: patched query-alone logits = with-context logits (Abstract).
  2. ``general_equivalence`` — the same for pre-LN, post-LN, parallel, gated and MoE blocks (Abstract).
  3. ``patched_generation`` — greedy decoding with per-step patches = with-context decoding; informative only where
     the context changes the generation and the generation has not collapsed.
  4. ``negative_controls`` — without the norm patch, or with one matrix patched, the equivalence breaks.
  5. ``llama_equivalence`` — the same on a pretrained Llama (SmolLM2-135M, float64): logits, greedy tokens, and
     another context's patches as a control.
  The abstract's "rank-1" is the form of every patch (one outer product per token), so claims 1-2 test it;
  :func:`solved_patches` re-derives the patches from with-context activations (an independent cross-check, in the
  tests).

Deviations / reconstructions (the abstract only; no paper text or code was available):
  1. The patch formulas are our reconstruction; they satisfy the abstract's statements exactly (the checks verify
     that). The output side patches the MLP's *output* matrix as well as its input matrices; the norm patch multiplies
     γ by a scalar per token (LayerNorm: plus a bias shift along γ). Its scalar λ is chosen so that an empty context
     gives the identity patch.
  2. Every query position gets its own patch (the patched model is run on the whole query), and the multi-layer
     algorithm feeds layer ℓ the with-context residuals of layer ℓ−1, as in the constructive proof.
  3. MoE: the router and the selected experts' input matrices get input patches, the top-1 expert's output matrix
     the output patch (scaled by 1/gate); TinyGPT's MoE has no shared down-projection.
  4. For post-LN blocks and parallel sandwich blocks with rotary positions the target already lies in the norm's
     range, so the norm patch is the identity up to ε: the norm patch matters for blocks with a norm *inside* the
     residual branch and a context-dependent skip path (Gemma's post-FFW norm).
  5. Models: random O(1)-scale weights, and (small budget) TinyGPTs trained briefly on a copy task; no Gemma weights.
     On Llama (pre-RMSNorm, SwiGLU, no norm after the MLP) the MLP patches alone suffice: no norm patch.
  6. "The context's effect" (the sensitivity bar of the equivalence claims, the denominator of the controls) is
     measured with the query at the same positions: logits on ``C ‖ x`` against logits on ``C' ‖ x``, ``C'`` another
     random context of the same length.
"""

from icml26.papers.implicit_patch._construct import (
    context_patches,
    layer_patches,
    patched_generate,
    patched_logits,
    with_context_logits,
)
from icml26.papers.implicit_patch._hf import (
    hf_context_patches,
    hf_patched_generate,
    hf_patched_logits,
    hf_with_context_logits,
)
from icml26.papers.implicit_patch._patches import (
    NormPatch,
    Patches,
    RankOnePatch,
    apply_patches,
)
from icml26.papers.implicit_patch._verify import solved_patches

__all__ = [
    "NormPatch",
    "Patches",
    "RankOnePatch",
    "apply_patches",
    "context_patches",
    "hf_context_patches",
    "hf_patched_generate",
    "hf_patched_logits",
    "hf_with_context_logits",
    "layer_patches",
    "patched_generate",
    "patched_logits",
    "solved_patches",
    "with_context_logits",
]
