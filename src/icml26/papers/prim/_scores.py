"""The token scores of [P31]'s three cooperative stages (our reconstruction from the abstract; no paper text or code).

- Stage (i), early text-conditioned fusion: :func:`text_conditioned_scores`, the attention that the question's
  tokens pay to each audio/video token, r_j = max_{h, i} softmax_j(q_i^h · k_j^h / √d_h).
- Stage (ii), attention-guided, frequency-aware pruning: :func:`video_redundancy` (cosine to the same patch in the
  previous frame), :func:`dct_highfreq_energy` (the non-DC energy of a patch's 2-D DCT), :func:`audio_novelty`
  (distance of a spectrogram slice to the clip's median spectrum).
- Stage (iii), task-adaptive retention inside the LM: :func:`entropy_to_ratio` (concentrated attention keeps fewer
  tokens) and :func:`llm_adaptive_retention` (top tokens by the attention the question pays them at a shallow layer).

Every formula below is our choice where the abstract names only the idea; each is a plain function so that a user can
plug in another (``prim_select(..., relevance=..., video_novelty=..., audio_score=...)``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import fft

from icml26.common import validation

__all__ = ["audio_novelty", "dct_highfreq_energy", "entropy_to_ratio", "llm_adaptive_retention",
           "text_conditioned_scores", "top_k", "video_redundancy"]


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest ``scores`` (ties to the lower index), in increasing order."""
    s = validation.real_array(scores, "scores", ndim=1)
    k = validation.int_at_least(k, "k", 0, hi=s.size)
    return np.sort(np.argsort(-s, kind="stable")[:k])


def text_conditioned_scores(text: np.ndarray, tokens: np.ndarray, *, n_heads: int = 1) -> np.ndarray:
    """Stage (i) of [P31] (reconstructed): r_j = max_{h, i} softmax_j(q_i^h · k_j^h / √d_h).

    ``text`` (m, d) are the question's queries and ``tokens`` (n, d) the audio/video keys, both already projected
    (in the toy: by the LM's first attention layer); the last axis is split into ``n_heads`` heads of d / n_heads.
    Each r_j lies in (0, 1]; for one query and one head the r_j sum to 1.
    """
    q = validation.real_array(text, "text", ndim=2)
    k = validation.real_array(tokens, "tokens", ndim=2)
    n_heads = validation.positive_int(n_heads, "n_heads")
    if q.shape[1] != k.shape[1]:
        raise ValueError(f"text and tokens must share their last dimension, got {q.shape} and {k.shape}")
    if q.shape[1] % n_heads:
        raise ValueError(f"n_heads must divide the dimension {q.shape[1]}, got {n_heads}")
    dh = q.shape[1] // n_heads
    qh = q.reshape(q.shape[0], n_heads, dh).transpose(1, 0, 2)
    kh = k.reshape(k.shape[0], n_heads, dh).transpose(1, 0, 2)
    logits = qh @ kh.transpose(0, 2, 1) / math.sqrt(dh)  # (h, m, n)
    logits -= logits.max(axis=-1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=-1, keepdims=True)
    return p.max(axis=(0, 1))


def video_redundancy(frames: np.ndarray) -> np.ndarray:
    """Stage (ii) of [P31] (reconstructed): the temporal redundancy of each video token, cos(x_{t,p}, x_{t-1,p}).

    ``frames`` is (T, P, D): T frames of P patch tokens. Frame 0 has no predecessor and gets redundancy 0; a zero
    token has cosine 0 with anything. Returns (T, P) in [-1, 1]; high means "the same as a moment ago".
    """
    x = validation.real_array(frames, "frames", ndim=3)
    red = np.zeros(x.shape[:2])
    norm = np.linalg.norm(x, axis=-1)
    dot = np.sum(x[1:] * x[:-1], axis=-1)
    den = norm[1:] * norm[:-1]
    red[1:] = np.divide(dot, den, out=np.zeros_like(dot), where=den > 0)
    return np.clip(red, -1.0, 1.0)


def dct_highfreq_energy(patches: np.ndarray, *, patch_shape: tuple[int, int, int], cutoff: int = 1) -> np.ndarray:
    """Stage (ii) of [P31] (reconstructed): the high-frequency energy Σ_{u+v >= cutoff} C_{c,u,v}² of each patch,
    C = the orthonormal 2-D DCT-II of each channel (``scipy.fft.dctn``), summed over channels.

    ``patches`` is (..., c·h·w), channel-major, ``patch_shape`` = (c, h, w). ``cutoff = 1`` keeps every non-DC
    coefficient, so a constant patch scores 0 and (Parseval) the score equals the patch's energy about its channel
    means. Returns the leading shape of ``patches``.
    """
    x = validation.real_array(patches, "patches")
    if not (isinstance(patch_shape, tuple) and len(patch_shape) == 3):
        raise TypeError(f"patch_shape must be a tuple (c, h, w), got {patch_shape!r}")
    c, h, w = (validation.positive_int(v, "patch_shape") for v in patch_shape)
    cutoff = validation.int_at_least(cutoff, "cutoff", 0, hi=h + w - 2)
    if x.ndim < 1 or x.shape[-1] != c * h * w:
        raise ValueError(f"patches must end in an axis of c*h*w = {c * h * w}, got shape {x.shape}")
    coef = np.asarray(fft.dctn(x.reshape(*x.shape[:-1], c, h, w), axes=(-2, -1), norm="ortho"))
    u, v = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    high = (u + v) >= cutoff
    return np.sum(coef ** 2 * high, axis=(-3, -2, -1))


def audio_novelty(slices: np.ndarray) -> np.ndarray:
    """Stage (ii) of [P31] (reconstructed): ‖s_t − median_t s‖₂ per spectrogram slice, the distance of each audio
    token to the clip's median spectrum (its steady background), so that every slice of a transient event scores
    high, not only its onset (as a frame-to-frame spectral flux would). ``slices`` is (n, F); returns (n,) >= 0.
    """
    s = validation.real_array(slices, "slices", ndim=2)
    return np.linalg.norm(s - np.median(s, axis=0, keepdims=True), axis=1)


def entropy_to_ratio(relevance: np.ndarray, *, rho_min: float = 0.5, levels: int = 8) -> float:
    """Stage (iii) of [P31] (reconstructed): the in-LM retention ratio ρ chosen per instruction from how concentrated
    its attention is: ρ = ρ_min + (1 − ρ_min) · H(p) / log n, p = relevance / Σ relevance, rounded up to a multiple
    of 1 / ``levels``. A question that looks at a few tokens (low entropy) keeps fewer of them inside the LM.
    """
    r = validation.real_array(relevance, "relevance", ndim=1)
    rho_min = validation.real(rho_min, "rho_min", lo=0.0, hi=1.0, lo_open=True)
    levels = validation.positive_int(levels, "levels")
    if np.any(r < 0) or r.sum() <= 0:
        raise ValueError("relevance must be non-negative with a positive sum")
    if r.size == 1:
        return 1.0
    p = r / r.sum()
    h = float(-np.sum(p[p > 0] * np.log(p[p > 0])) / math.log(r.size))
    rho = rho_min + (1.0 - rho_min) * min(max(h, 0.0), 1.0)
    return min(1.0, math.ceil(rho * levels - 1e-9) / levels)


def llm_adaptive_retention(attn_from_text: np.ndarray, *, ratio: float) -> np.ndarray:
    """Stage (iii) of [P31] (reconstructed): the audio/video tokens kept after a shallow LM layer, the top
    ⌈ratio · n⌉ by the attention the question's tokens pay them (averaged over heads and question tokens).

    ``attn_from_text`` is (n,), (m, n) or (h, m, n); returns sorted indices into the n tokens.
    """
    a = validation.real_array(attn_from_text, "attn_from_text", ndim=(1, 2, 3))
    ratio = validation.real(ratio, "ratio", lo=0.0, hi=1.0, lo_open=True)
    score = a.reshape(-1, a.shape[-1]).mean(axis=0)
    return top_k(score, max(1, math.ceil(ratio * score.size - 1e-9)))
