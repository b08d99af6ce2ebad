"""[P05] MACKO: Sparse Matrix-Vector Multiplication for Low Sparsity

**Method.** MACKO ("mutually aligned compressed coordinates") stores a sparse matrix as fp16 values, one 4-bit
column delta per value in a parallel, index-aligned array (two per byte), and int32 row pointers. A delta counts
the zero columns skipped before its value; a gap of 16 or more zeros is bridged by explicit zero *padding* entries.
That costs 20 bits per stored entry, so 50 % unstructured sparsity needs 0.625x the bytes of dense fp16 and the
format beats dense up to a density of about 0.8. SpMV decodes columns with a prefix sum over the deltas and
accumulates in fp32; the paper's GPU kernel does it with one warp per row.

**What is here.** :class:`MackoMatrix` (``from_dense`` of fp16/32/64 arrays, torch tensors or ``scipy.sparse``
matrices, ``matvec``/``@``, ``matmat``, ``to_dense``, ``nbytes``, ``density``, ``save``/``load`` with a sha256);
C++ CPU kernels (AVX-512 / AVX2 / scalar, chosen at run time, GIL released, optional threads) and a dense fp16 GEMV
baseline (:func:`dense_fp16_gemv`); a Triton GPU kernel behind ``device="cuda"`` (also
``sparsify_linear(..., device="cuda")``; CI runs it in Triton's interpreter); a numpy reference
(:func:`reference_spmv`) as oracle and fallback; :func:`wanda_prune` and :func:`sparsify_linear` (torch
``nn.Linear`` -> MACKO-backed inference layer); for a pretrained transformers decoder, :func:`wanda_prune_model`
(every block linear, calibrated on the user's token ids), :func:`to_macko` (swap them for MACKO layers),
:func:`block_linears` and :func:`perplexity`.

**Claims** (words, bars and basis in ``paper.toml``; measured in ``_checks*.py``, judged in ``_rules.py``):
``memory_reduction`` (1.5x less memory than dense fp16 at 50 %, break-even density ~0.8), ``spmv_speedup_50``
(1.2-1.5x over cuBLAS at 50 %; a GPU claim, timed), ``e2e_memory`` (a Wanda-50 % decoder needs 1.5x less memory) and
``e2e_speed`` (it decodes 1.5x faster; a GPU claim, timed), ``e2e_real_lm`` (the memory claim on a Wanda-50 %
SmolLM2-135M, with its greedy tokens and perplexity) and ``e2e_real_lm_speed`` (its decode speed; a GPU claim, timed).

**Deviations.** The arrays are padded to a multiple of 16 entries (paper: 8) for 16-lane AVX-512 loads. The CPU
kernel is our adaptation of the warp kernel (16-lane chunks; a byte prefix sum decodes four chunks per step; ``x``
comes from a permuted 64-float window, or a gather when a chunk spans >= 64 columns; a batch of <= 8 vectors
shares one pass over the entries). ``-0.0`` weights count as zeros. Zero weights are skipped, so ``inf``/``NaN`` in ``x`` reach ``y`` only through stored entries (dense ``0 * inf`` gives NaN).
Speed is measured on a CPU (the GPU claim needs ``full``): kernels are timed in paired rounds (order rotated), the
verdict uses the median per-round ratio with a bootstrap CI of that median, and operands smaller than 64 MiB are
rotated over copies so they stream from DRAM. The e2e memory number counts linear-layer weights only (the paper's
1.53x is whole-model memory).
"""

from icml26.papers.macko._format import ALIGN
from icml26.papers.macko._kernels import (
    best_isa,
    dense_fp16_gemv,
    native_available,
    reference_spmv,
)
from icml26.papers.macko._matrix import MackoFormatError, MackoMatrix
from icml26.papers.macko._real import block_linears, perplexity, to_macko, wanda_prune_model
from icml26.papers.macko._storage import (
    break_even_density,
    csr_bytes,
    dense_fp16_bytes,
    macko_expected_bytes,
)
from icml26.papers.macko._wanda import sparsify_linear, wanda_prune

__all__ = [
    "ALIGN",
    "MackoFormatError",
    "MackoMatrix",
    "best_isa",
    "block_linears",
    "break_even_density",
    "csr_bytes",
    "dense_fp16_bytes",
    "dense_fp16_gemv",
    "macko_expected_bytes",
    "native_available",
    "perplexity",
    "reference_spmv",
    "sparsify_linear",
    "to_macko",
    "wanda_prune",
    "wanda_prune_model",
]
