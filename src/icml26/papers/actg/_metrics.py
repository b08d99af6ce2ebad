"""Evaluation of [P28]: MAUVE (mauve-text over sentence embeddings), control accuracy and embeddings.

The paper computes MAUVE on Specter2 embeddings; ``small`` here embeds with all-MiniLM-L6-v2 (a shipped model), and
``smoke`` with hashed word 1-2-gram features (no model load), both fed to ``mauve.compute_mauve`` (faiss k-means).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from icml26.common.validation import choice, int_array, positive_int, real_array
from icml26.common.validation import seed as check_seed
from icml26.papers.actg._corpus import extract_attributes

__all__ = ["control_accuracy", "embed_texts", "mauve_score"]


def embed_texts(texts: list[list[str]], *, embed: str = "hashed", encoder: object = None) -> np.ndarray:
    """Features of texts for [P28]'s MAUVE: ``hashed`` (word 1-2-grams hashed to 256 dims, L2-normalised) or ``minilm``
    (all-MiniLM-L6-v2 sentence embeddings; pass a loaded ``encoder`` to reuse one)."""
    embed = choice(embed, "embed", ("hashed", "minilm"))
    if not texts or not all(isinstance(t, list) for t in texts):
        raise ValueError("texts must be a non-empty list of word lists")
    docs = [" ".join(t) if t else "<empty>" for t in texts]
    if embed == "hashed":
        from sklearn.feature_extraction.text import HashingVectorizer

        hv = HashingVectorizer(n_features=256, ngram_range=(1, 2), token_pattern=r"\S+", alternate_sign=False)
        feats: Any = hv.transform(docs)
        return np.asarray(feats.toarray(), dtype=np.float64)
    if encoder is None:
        from icml26.common.models import load_sentence_encoder

        encoder = load_sentence_encoder("all-minilm-l6-v2")
    out = encoder.encode(docs, batch_size=128, show_progress_bar=False, convert_to_numpy=True)  # type: ignore[attr-defined]
    return np.asarray(out, dtype=np.float64)


def mauve_score(p_features: np.ndarray, q_features: np.ndarray, *, seed: int) -> float:
    """MAUVE between real (``p``) and synthetic (``q``) feature sets ([P28]'s fidelity metric), by mauve-text with
    its default quantisation (k-means into n/10 clusters after PCA), with the explicit k-means ``seed``."""
    import mauve

    p = real_array(p_features, "p_features", ndim=2)
    q = real_array(q_features, "q_features", ndim=2)
    if p.shape[1] != q.shape[1]:
        raise ValueError(f"p_features and q_features differ in width: {p.shape[1]} != {q.shape[1]}")
    positive_int(min(len(p), len(q)) - 1, "p_features/q_features rows - 1")
    logging.getLogger("mauve").setLevel(logging.ERROR)
    out = mauve.compute_mauve(p_features=p, q_features=q, seed=check_seed(seed), verbose=False, device_id=-1)
    return float(out.mauve)


def control_accuracy(texts: list[list[str]], rows: np.ndarray) -> float:
    """[P28] control: the share of requested fields (``rows``) that the rubric extractor recovers from ``texts``."""
    r = int_array(rows, "rows", ndim=2)
    if len(texts) != len(r):
        raise ValueError(f"texts and rows differ in length: {len(texts)} != {len(r)}")
    return float(np.mean([extract_attributes(t) == row for t, row in zip(texts, r)]))
