"""The public entry points of [P31] for the bad-input conformance test."""

import numpy as np

from icml26.papers.prim import (
                                AVTokens,
                                audio_novelty,
                                dct_highfreq_energy,
                                entropy_to_ratio,
                                keep_count,
                                llm_adaptive_retention,
                                make_clips,
                                prim_select,
                                text_conditioned_scores,
                                video_redundancy,
)
from support.badinput import Entry

_g = np.random.default_rng(0)
_text, _keys = _g.standard_normal((2, 8)), _g.standard_normal((12, 8))
_clips = make_clips(2, seed=0, frames=2)
_tok = AVTokens(video=_clips.video[0], audio=_clips.audio[0], keys=_g.standard_normal((2 * 20, 8)),
                patch_shape=(3, 4, 4), n_heads=2)

ENTRY_POINTS = [
    Entry("text_conditioned_scores", text_conditioned_scores, valid={"text": _text, "tokens": _keys, "n_heads": 2},
          kinds={"text": "array", "tokens": "array", "n_heads": "int"}),
    Entry("video_redundancy", video_redundancy, valid={"frames": _g.standard_normal((3, 4, 6))},
          kinds={"frames": "array"}),
    Entry("dct_highfreq_energy", dct_highfreq_energy, valid={"patches": _g.standard_normal((5, 48)),
                                                             "patch_shape": (3, 4, 4), "cutoff": 1},
          kinds={"patches": "array", "cutoff": "int"}, skip={"patches:extra_dim": "any leading shape is allowed"}),
    Entry("audio_novelty", audio_novelty, valid={"slices": _g.standard_normal((6, 5))}, kinds={"slices": "array"}),
    Entry("entropy_to_ratio", entropy_to_ratio, valid={"relevance": np.array([0.1, 0.5, 0.4]), "rho_min": 0.5,
                                                       "levels": 8},
          kinds={"relevance": "array", "rho_min": "posreal", "levels": "int"}),
    Entry("llm_adaptive_retention", llm_adaptive_retention, valid={"attn_from_text": _g.random((2, 6)), "ratio": 0.5},
          kinds={"attn_from_text": "array", "ratio": "posreal"},
          skip={"attn_from_text:extra_dim": "(h, m, n) attention over heads is a valid input"}),
    Entry("keep_count", keep_count, valid={"n": 10, "budget": 0.5}, kinds={"n": "int", "budget": "posreal"}),
    Entry("prim_select", prim_select, valid={"tokens": _tok, "text": _g.standard_normal((2, 8)), "budget": 0.25},
          kinds={"text": "array", "budget": "posreal"}),
    Entry("make_clips", make_clips, valid={"n": 2, "seed": 0, "frames": 2, "noise": 0.03},
          kinds={"n": "int", "seed": "seed", "frames": "int", "noise": "nonneg"}),
]
