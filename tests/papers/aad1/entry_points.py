"""The public entry points of [P24] for the bad-input conformance test (tiny random networks)."""

import numpy as np

from icml26.papers.aad1 import (
    CausalChunkGenerator,
    NetConfig,
    VideoDenoiser,
    adversarial_distill,
    build,
    centroids,
    dmd_gradient,
    dmd_warmup,
    frame_error,
    imle_init,
    imle_match,
    make_sprite_videos,
    motion_stats,
    render_sprite,
    rollout,
    teacher_sample,
    train_teacher,
)
from support.badinput import Entry

NET = NetConfig(frames=4, size=8, teacher_hidden=4, student_hidden=4, disc_hidden=4, latent=2)
_v = make_sprite_videos(6, frames=4, size=8, modes=((1.0, 0.0),), sigma=1.2, seed=0).videos
_g = build(CausalChunkGenerator, NET, seed=0)
_t = build(VideoDenoiser, NET, seed=0)
_x = np.random.default_rng(0).standard_normal((2, 3, 8, 8))
_train = {"net": NET, "steps": 1, "batch": 2, "lr": 1e-3, "probe_every": 1, "seed": 0}
_train_kinds = {"videos": "array", "steps": "int", "batch": "int", "lr": "posreal", "probe_every": "int",
                "seed": "seed"}

ENTRY_POINTS = [
    Entry("make_sprite_videos", make_sprite_videos,
          valid={"n": 3, "frames": 4, "size": 8, "modes": [[1.0, 0.0], [0.0, 1.0]], "sigma": 1.2, "seed": 0},
          kinds={"n": "int", "frames": "int", "size": "int", "modes": "array", "sigma": "posreal", "seed": "seed"}),
    Entry("render_sprite", render_sprite, valid={"positions": [1.0, 2.5], "size": 8, "sigma": 1.0},
          kinds={"positions": "array", "size": "int", "sigma": "posreal"},
          skip={"positions:extra_dim": "positions of any shape render one frame each"}),
    Entry("centroids", centroids, valid={"videos": _v}, kinds={"videos": "array"}),
    Entry("motion_stats", motion_stats, valid={"videos": _v, "static_px": 0.5},
          kinds={"videos": "array", "static_px": "posreal"}),
    Entry("frame_error", frame_error, valid={"videos": _v, "sigma": 1.2, "grid": 4},
          kinds={"videos": "array", "sigma": "posreal", "grid": "int"}),
    Entry("dmd_gradient", dmd_gradient, valid={"x": _x, "x0_real": _x * 0.5, "x0_fake": _x * 0.9},
          kinds={"x": "array", "x0_real": "array", "x0_fake": "array"}),
    Entry("rollout", rollout, valid={"generator": _g, "cond": _v[:, 0], "frames": 5, "seed": 0},
          kinds={"cond": "array", "frames": "int", "seed": "seed"}),
    Entry("teacher_sample", teacher_sample, valid={"teacher": _t, "cond": _v[:, 0], "steps": 2, "seed": 0},
          kinds={"cond": "array", "steps": "int", "seed": "seed"}),
    Entry("train_teacher", train_teacher, valid={"videos": _v, "net": NET, "steps": 1, "batch": 2, "lr": 1e-3,
                                                 "seed": 0},
          kinds={"videos": "array", "steps": "int", "batch": "int", "lr": "posreal", "seed": "seed"}),
    Entry("dmd_warmup", dmd_warmup, valid={"generator": _g, "teacher": _t, "videos": _v, "fake_updates": 1, **_train},
          kinds={**_train_kinds, "fake_updates": "int"}),
    Entry("adversarial_distill", adversarial_distill,
          valid={"generator": _g, "videos": _v, "discriminator": "bidirectional", "r1": 1.0, "noise": 0.3, **_train},
          kinds={**_train_kinds, "discriminator": "str", "r1": "nonneg", "noise": "nonneg"}),
    Entry("imle_init", imle_init, valid={"generator": _g, "cond": _v[:, 0], "targets": _v[:, 1:], "steps": 1, "batch": 2,
                                         "lr": 1e-3, "candidates": 2, "seed": 0},
          kinds={"cond": "array", "targets": "array", "steps": "int", "batch": "int", "lr": "posreal",
                 "candidates": "int", "seed": "seed"}),
    Entry("imle_match", imle_match, valid={"candidates": _x, "targets": _x[:, 0]},
          kinds={"candidates": "array", "targets": "array"}),
    Entry("build", build, valid={"cls": CausalChunkGenerator, "cfg": NET, "seed": 0}, kinds={"seed": "seed"}),
    Entry("NetConfig", NetConfig, valid={"frames": 4, "size": 8, "latent": 2, "cache": 2},
          kinds={"frames": "int", "size": "int", "latent": "int", "cache": "int"}),
]
