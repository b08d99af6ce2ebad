"""[P24] AAD-1: Asymmetric Adversarial Distillation for One-Step Autoregressive Video Generation

What it is: a multi-step bidirectional image-to-video diffusion teacher is distilled into a causal, chunk-wise
autoregressive student that makes each chunk in one network call, reading a cache of its own past chunks. Training
has two phases: a DMD warm-up (the generator follows s_fake − s_real, with s_real the frozen teacher and s_fake an
online denoiser of the student's rollouts), then adversarial distillation where the generator stays causal but the
discriminator sees the whole video bidirectionally and gives one holistic realism score (the asymmetry).

Claims (words, bars and basis in paper.toml; measured in ``_checks*.py``, judged in ``_rules.py``):
  1. ``motion_kept`` — the bidirectional discriminator keeps the data's motion (Abstract).
  2. ``causal_collapse`` — symmetric (per-chunk) adversarial distillation collapses toward static videos (Abstract).
  3. ``warmup_stability`` — the DMD warm-up stabilises adversarial training (Abstract).
  4. ``drift_2x`` — less long-range drift than DMD alone at twice the training horizon (Abstract).
  5. ``one_step_speed`` — one-step sampling against the multi-step teacher (Abstract); timed.

Deviations / reconstructions (abstract only; no paper text or code):
  1. Data: 2-D sprite videos, 12×12 frames on a torus (the sprite wraps around), 8 training frames, rollouts to 16;
     eight velocity modes (the compass moves, 1 or √2 px/frame); frame 0 the condition; motion read exactly from the
     sprite's circular centroid per axis. No VBench, no pretrained video model.
  2. Networks: circular 3×3 2-D convolutions (translation-equivariant), frames stacked as channels. Teacher:
     x0-denoiser over all frames at once, cosine VP schedule, 50-step DDIM. Student: one chunk = one frame, cache = the last 2 chunks, 4 global noise
     channels per chunk. Discriminators: bidirectional over all frames; the symmetric baseline scores each chunk
     alone and averages (our reading of "causal").
  3. DMD in DMD2's x0 form with the 1/mean|x − x̂0_real| normaliser, fake score initialised from the teacher;
     GAN: non-saturating loss with R1 on real videos; the critics see instance-noised videos (frames 1..T−1
     diffused to t ~ U(0, 0.5), ours: without it the GAN blurs the DMD student); every setting is in ``claims.py``.
  4. Student initialisation (ours): the paper's student starts from the pretrained teacher's weights; ours cannot
     (other architecture), so every arm starts from the same IMLE regression on the teacher's samples
     (``imle_init``). Regression on the teacher's noise -> sample pairs does not work here: the bidirectional
     teacher picks a sprite's direction from the noise of all frames, which a causal student cannot see at chunk 1.
"""

from icml26.papers.aad1._data import (
                                      COMPASS_MODES,
                                      SIGMA,
                                      MotionStats,
                                      SpriteVideos,
                                      centroids,
                                      frame_error,
                                      make_sprite_videos,
                                      motion_stats,
                                      render_sprite,
)
from icml26.papers.aad1._diffusion import alpha_sigma, dsm_loss, score_from_x0, teacher_sample, train_teacher
from icml26.papers.aad1._distill import (
                                      DISCRIMINATORS,
                                      DistillLog,
                                      adversarial_distill,
                                      dmd_gradient,
                                      dmd_warmup,
                                      imle_init,
                                      imle_match,
                                      rollout,
)
from icml26.papers.aad1._nets import (
                                      BidirectionalDiscriminator,
                                      CausalChunkGenerator,
                                      ChunkDiscriminator,
                                      NetConfig,
                                      VideoDenoiser,
                                      build,
)

__all__ = ["COMPASS_MODES", "DISCRIMINATORS", "SIGMA", "BidirectionalDiscriminator", "CausalChunkGenerator",
           "ChunkDiscriminator", "DistillLog", "MotionStats", "NetConfig", "SpriteVideos", "VideoDenoiser", "adversarial_distill", "alpha_sigma", "build",
           "centroids", "dmd_gradient", "dmd_warmup", "dsm_loss", "frame_error", "imle_init", "imle_match", "make_sprite_videos",
           "motion_stats", "render_sprite", "rollout", "score_from_x0", "teacher_sample", "train_teacher"]
