"""Token selection before the LM: [P31]'s cooperative selector and the baselines, all behind one interface
``select(tokens, text, budget) -> indices`` (sorted indices into the clip's audio/video tokens, video first).

A ``budget`` in (0, 1] keeps k = max(1, round(budget · n)) of the n audio/video tokens (text tokens are never
pruned). The in-LM stage (FastV's and PRIM's) is described by :class:`Method` and run by :mod:`._lm`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from icml26.common import validation
from icml26.papers.prim._scores import (
    audio_novelty,
    dct_highfreq_energy,
    entropy_to_ratio,
    text_conditioned_scores,
    top_k,
    video_redundancy,
)

__all__ = ["AVTokens", "Method", "audio_guided_select", "fastv_retention", "fixed_share_select", "keep_count",
           "prim_retention", "prim_select", "random_select", "temporal_stride_select", "uniform_select",
           "video_saliency"]

Selector = Callable[["AVTokens", np.ndarray, float], np.ndarray]


@dataclass(frozen=True)
class AVTokens:
    """One clip's audio/video tokens for [P31]'s selectors.

    ``video`` (T, P, Dv): raw patch tokens (channel-major pixels of ``patch_shape`` = (c, h, w));
    ``audio`` (T, A, Da): spectrogram-slice tokens; ``keys`` (T·P + T·A, d): the same tokens as the LM's first
    attention layer sees them (its key projections), video first; ``n_heads`` splits ``keys`` into heads.
    """

    video: np.ndarray
    audio: np.ndarray
    keys: np.ndarray
    patch_shape: tuple[int, int, int]
    n_heads: int = 1

    def __post_init__(self) -> None:
        v = validation.real_array(self.video, "video", ndim=3)
        a = validation.real_array(self.audio, "audio", ndim=3)
        k = validation.real_array(self.keys, "keys", ndim=2)
        if v.shape[0] != a.shape[0]:
            raise ValueError(f"video and audio must have the same number of frames, got {v.shape[0]} and {a.shape[0]}")
        if k.shape[0] != v.shape[0] * (v.shape[1] + a.shape[1]):
            raise ValueError(f"keys must have one row per token ({v.shape[0] * (v.shape[1] + a.shape[1])}), "
                             f"got {k.shape[0]}")
        validation.positive_int(self.n_heads, "n_heads")
        object.__setattr__(self, "video", v)
        object.__setattr__(self, "audio", a)
        object.__setattr__(self, "keys", k)

    @property
    def n_video(self) -> int:
        """The number of video tokens T·P."""
        return int(self.video.shape[0] * self.video.shape[1])

    @property
    def n(self) -> int:
        """The number of audio/video tokens."""
        return int(self.keys.shape[0])

    @property
    def frame(self) -> np.ndarray:
        """The frame index of every token (video then audio)."""
        t, p, a = self.video.shape[0], self.video.shape[1], self.audio.shape[1]
        return np.concatenate([np.repeat(np.arange(t), p), np.repeat(np.arange(t), a)])


@dataclass(frozen=True)
class Method:
    """A compression method of the [P31] comparison: the selector before the LM and, optionally, the in-LM stage.

    ``retention`` maps (tokens, text) to the fraction ρ of the pre-selected tokens kept after layer ``prune_after``
    (by the question's attention there); ``None`` means no in-LM stage. At equal attention FLOPs a method with an
    in-LM stage may pre-select more tokens (:func:`._lm.plan_counts`).
    """

    name: str
    select: Selector
    retention: Callable[[AVTokens, np.ndarray], float] | None = None
    prune_after: int = 1


def keep_count(n: int, budget: float) -> int:
    """[P31] budgets: max(1, round(budget · n)) tokens kept of ``n`` at a retained-token ratio ``budget`` in (0, 1]."""
    n = validation.positive_int(n, "n")
    budget = validation.real(budget, "budget", lo=0.0, hi=1.0, lo_open=True)
    return max(1, min(n, round(budget * n)))


def _checked(tokens: AVTokens, text: np.ndarray, budget: float) -> tuple[np.ndarray, int]:
    if not isinstance(tokens, AVTokens):
        raise TypeError(f"tokens must be an AVTokens, got {type(tokens).__name__}")
    q = validation.real_array(text, "text", ndim=2)
    if q.shape[1] != tokens.keys.shape[1]:
        raise ValueError(f"text must have {tokens.keys.shape[1]} columns (the keys' dimension), got {q.shape[1]}")
    return q, keep_count(tokens.n, budget)


def uniform_select(tokens: AVTokens, text: np.ndarray, budget: float) -> np.ndarray:
    """Baseline of [P31]: k evenly spaced tokens of the video-then-audio sequence, ⌊i·n/k⌋ for i < k."""
    _, k = _checked(tokens, text, budget)
    return (np.arange(k) * tokens.n) // k


def random_select(tokens: AVTokens, text: np.ndarray, budget: float, *, seed: int) -> np.ndarray:
    """Baseline of [P31]: k tokens drawn uniformly without replacement from an explicit ``seed``."""
    _, k = _checked(tokens, text, budget)
    g = np.random.default_rng(validation.seed(seed))
    return np.sort(g.choice(tokens.n, size=k, replace=False))


def temporal_stride_select(tokens: AVTokens, text: np.ndarray, budget: float) -> np.ndarray:
    """Baseline of [P31]: whole frames (their video and audio tokens) at a stride s = round(1 / budget), frames
    t ≡ 0 (mod s) first, then t ≡ 1, ...; the k-th token in that order closes the selection."""
    _, k = _checked(tokens, text, budget)
    s = max(1, round(1.0 / budget))
    t = tokens.frame
    order = np.lexsort((np.arange(tokens.n), t, t % s))  # last key is primary: phase, then frame, then index
    return np.sort(order[:k])


def _split(k: int, share_video: float, n_video: int, n_audio: int) -> tuple[int, int]:
    kv = min(n_video, max(0, round(k * share_video)))
    ka = min(n_audio, k - kv)
    return k - ka, ka


def fixed_share_select(tokens: AVTokens, text: np.ndarray, budget: float) -> np.ndarray:
    """Baseline of [P31] (fixed per-modality budgets): each modality keeps its proportion of the k tokens, and within
    a modality the tokens with the highest text-conditioned relevance r_j (:func:`text_conditioned_scores`)."""
    q, k = _checked(tokens, text, budget)
    r = text_conditioned_scores(q, tokens.keys, n_heads=tokens.n_heads)
    nv = tokens.n_video
    kv, ka = _split(k, nv / tokens.n, nv, tokens.n - nv)
    return np.concatenate([top_k(r[:nv], kv), nv + top_k(r[nv:], ka)])


def _unit(x: np.ndarray) -> np.ndarray:
    """``x`` scaled into [0, 1] by its min and max (a constant vector becomes ones)."""
    lo, hi = float(x.min()), float(x.max())
    return np.ones_like(x) if hi - lo <= 1e-12 else (x - lo) / (hi - lo)


def video_saliency(tokens: AVTokens, *, mix: float = 0.5) -> np.ndarray:
    """[P31] stage (ii) for video (reconstructed): mix · unit(1 − redundancy) + (1 − mix) · unit(DCT HF energy)."""
    red = video_redundancy(tokens.video).ravel()
    hf = dct_highfreq_energy(tokens.video, patch_shape=tokens.patch_shape).ravel()
    return mix * _unit(1.0 - red) + (1.0 - mix) * _unit(hf)


def audio_guided_select(tokens: AVTokens, text: np.ndarray, budget: float, *, beta: float = 0.5) -> np.ndarray:
    """Baseline of [P31] (OmniZip-style audio-guided video pruning, our reading): audio keeps its proportion of k by
    :func:`audio_novelty`; each frame's video budget is ∝ (1 − β)/T + β · (the frame's share of audio novelty), and a
    frame keeps its least redundant patches (:func:`video_saliency`). No text."""
    _, k = _checked(tokens, text, budget)
    nv = tokens.n_video
    t, p, a = tokens.video.shape[0], tokens.video.shape[1], tokens.audio.shape[1]
    kv, ka = _split(k, nv / tokens.n, nv, tokens.n - nv)
    nov = audio_novelty(tokens.audio.reshape(t * a, -1))
    w = nov.reshape(t, a).sum(axis=1)
    w = (1.0 - beta) / t + beta * (w / w.sum() if w.sum() > 0 else np.full(t, 1.0 / t))
    quota = np.minimum(p, np.floor(kv * w)).astype(int)
    for i in np.argsort(-(kv * w - quota), kind="stable"):  # largest remainders first, never above p per frame
        if quota.sum() >= kv:
            break
        quota[i] += quota[i] < p
    while quota.sum() < kv:  # a frame capped at p handed its remainder on
        quota[np.argmax(quota < p)] += 1
    sal = video_saliency(tokens).reshape(t, p)
    video = np.concatenate([f * p + top_k(sal[f], int(quota[f])) for f in range(t)])
    return np.sort(np.concatenate([video, nv + top_k(nov, ka)]))


def prim_select(tokens: AVTokens, text: np.ndarray, *, budget: float, modality_shares: tuple[float, float] | None = None,
                share_floor: float = 0.1, relevance: Callable[..., np.ndarray] = text_conditioned_scores,
                video_novelty: Callable[[AVTokens], np.ndarray] = video_saliency,
                audio_score: Callable[[np.ndarray], np.ndarray] = audio_novelty) -> np.ndarray:
    """Stages (i)-(ii) of [P31] (reconstructed): cooperative, text-conditioned audio/video token selection.

    r = ``relevance(text, keys)`` (stage i). Per-modality budgets: ``modality_shares`` = (video, audio) when given,
    else the measured attention share Σ_video r / Σ r, clipped to [``share_floor``, 1 − ``share_floor``] (our rule
    for the abstract's modality imbalance). Within a modality a token scores unit(r_j) · (0.1 + unit(novelty_j)),
    novelty = ``video_novelty`` (redundancy and DCT energy) or ``audio_score`` (spectral novelty), and the top ones
    are kept. Returns k sorted indices.
    """
    q, k = _checked(tokens, text, budget)
    share_floor = validation.real(share_floor, "share_floor", lo=0.0, hi=0.5)
    r = np.asarray(relevance(q, tokens.keys, n_heads=tokens.n_heads), dtype=float)
    nv = tokens.n_video
    if modality_shares is None:
        sv = float(r[:nv].sum() / r.sum())
        sv = min(1.0 - share_floor, max(share_floor, sv))
    else:
        shares = validation.probability_vector(np.asarray(modality_shares, dtype=float), "modality_shares", atol=1e-6)
        if shares.size != 2:
            raise ValueError(f"modality_shares must be (video, audio), got {modality_shares!r}")
        sv = float(shares[0])
    kv, ka = _split(k, sv, nv, tokens.n - nv)
    t, a = tokens.audio.shape[0], tokens.audio.shape[1]
    sv_score = _unit(r[:nv]) * (0.1 + _unit(video_novelty(tokens)))
    sa_score = _unit(r[nv:]) * (0.1 + _unit(audio_score(tokens.audio.reshape(t * a, -1))))
    return np.concatenate([top_k(sv_score, kv), nv + top_k(sa_score, ka)])


def prim_retention(tokens: AVTokens, text: np.ndarray, *, rho_min: float = 0.5) -> float:
    """Stage (iii) of [P31] (reconstructed): ρ from the entropy of the text-conditioned relevance
    (:func:`entropy_to_ratio`), chosen before the LM so that the pre-LM budget can be set at equal FLOPs."""
    r = text_conditioned_scores(validation.real_array(text, "text", ndim=2), tokens.keys, n_heads=tokens.n_heads)
    return entropy_to_ratio(r, rho_min=rho_min)


def fastv_retention(tokens: AVTokens, text: np.ndarray) -> float:
    """FastV's fixed in-LM retention (half of the tokens after layer K = 1), the baseline of [P31]."""
    del tokens, text
    return 0.5
