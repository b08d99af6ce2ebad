"""[P30] A Unified Sparse Attention via Multi-Granularity Compression

What it is: UniSparse, a training-free replacement for the prefill attention of an LLM. Per head, queries and keys are
cut into blocks of S tokens; composite tokens, means of c consecutive tokens inside a block (q̃_{i,t'} =
(1/c_q) Σ_{m<c_q} q_{i,t'c_q+m}, keys likewise with c_k), are scored against each other at several granularities
(Ã = softmax(Q̃ K̃ᵀ / √d), causal), summed into block scores s_ij, and each query block keeps the fewest key blocks
holding a share τ of its score. Exact attention then runs on the kept blocks only: a block-sparse kernel (here a
native CPU kernel and a Triton GPU kernel), O(n²/(c_q c_k)) for the selection.

API: ``unisparse_mask(q, k, *, block, cq, ck, tau, granularities) -> BlockMask``, ``block_sparse_attention(q, k, v,
mask)``, the baselines behind the same mask API (``streaming_mask``, ``vertical_slash_mask``, ``xattention_mask``,
``flexprefill_mask``, ``random_block_mask``), ``sparse_prefill(model, method)`` (a context manager that swaps the
prefill attention of a transformers Llama-family model), and the yardsticks ``block_attention_mass``,
``mass_recall``, ``output_error``.

Claims (words, bars and basis in paper.toml; measured in ``_checks_*.py``, judged in ``_rules.py``):
  1. ``mqar_accuracy`` — >= 99 % of full-attention accuracy (Abstract); on multi-query associative recall, <= 30 %
     block density.
  2. ``beats_baselines`` — more accurate than MInference, XAttention, FlexPrefill (Abstract); at equal density.
  3. ``lm_perplexity`` — the plug-in keeps the accuracy of a real LM (Abstract); SmolLM2-135M perplexity within 1 %.
  4. ``mass_recall`` — the selection keeps more attention mass than the baselines at equal density.
  5. ``tau_one_exact`` — selecting every block (τ = 1) gives full attention.
  6. ``gpu_speedup`` — up to 2.61x faster than FlashAttention (Abstract); GPU, timed.

Deviations / reconstructions (only the abstract and a third-party summary quoting the compression equation were
available):
  1. Block scores: Ã over composite keys with a log(token count) term for partial composites, s_ij the mean over the
     composite queries of block i of Ã's mass on block j; granularity g pools c·g tokens; granularities are combined
     by their maximum and renormalised. The sink block and the diagonal block are always kept; τ = 1 keeps all.
  2. Density is blocks kept / causal blocks. Comparisons at equal density set each baseline's knob to reach at least
     UniSparse's density (its τ, γ, window, line budget or density).
  3. MInference's and FlexPrefill's token-level vertical and slash lines are widened to the blocks they cross;
     XAttention scores a stride-S tile by the mean of its antidiagonal logits.
  4. The MQAR task writes each fact as a span of one token kind (a one-step lookup a tiny model learns in a minute on
     one CPU thread), facts in the first 75 % of the sequence and the questions after them, with predictable filler so
     that the model is trained at every position like a language model.
"""

from icml26.papers.unisparse._attention import BACKENDS, block_sparse_attention, full_attention, native_available
from icml26.papers.unisparse._baselines import (
    flexprefill_mask,
    random_block_mask,
    streaming_mask,
    vertical_slash_mask,
    xattention_mask,
)
from icml26.papers.unisparse._mask import BlockMask
from icml26.papers.unisparse._metrics import block_attention_mass, mass_recall, output_error
from icml26.papers.unisparse._mqar import MQARTask, mqar_batch
from icml26.papers.unisparse._patch import PrefillLog, sparse_prefill
from icml26.papers.unisparse._synthetic import structured_qkv
from icml26.papers.unisparse._unisparse import composite_tokens, unisparse_block_scores, unisparse_mask

__all__ = [
    "BACKENDS",
    "BlockMask",
    "MQARTask",
    "PrefillLog",
    "block_attention_mass",
    "block_sparse_attention",
    "composite_tokens",
    "flexprefill_mask",
    "full_attention",
    "mass_recall",
    "mqar_batch",
    "native_available",
    "output_error",
    "random_block_mask",
    "sparse_prefill",
    "streaming_mask",
    "structured_qkv",
    "unisparse_block_scores",
    "unisparse_mask",
    "vertical_slash_mask",
    "xattention_mask",
]
