"""The [P24] training arms shared by the claims of run group ``arms``: one teacher, then per seed four students.

Per seed, the student is first initialised on the teacher's samples by IMLE (:func:`._distill.imle_init`, ours), then
the arms start from that same initialisation with the same total number of generator steps ``warmup + adversarial``:
``dmd`` (DMD warm-up continued for the whole budget), ``aad`` (DMD warm-up, then the bidirectional GAN: AAD-1),
``causal`` (DMD warm-up, then the per-chunk GAN), ``adv_only`` (the bidirectional GAN straight from the IMLE
initialisation, no warm-up). The initialisation is cached per seed like the teacher; each seed runs as two jobs
(the DMD-based arms, and the GAN alone), so that two workers share three seeds evenly.
"""

from __future__ import annotations

import copy
from functools import partial
from typing import Any

import numpy as np
import torch

from icml26.common.cache import cached_value
from icml26.papers.aad1._data import COMPASS_MODES, SIGMA, SpriteVideos, frame_error, make_sprite_videos, motion_stats
from icml26.papers.aad1._diffusion import teacher_sample, train_teacher
from icml26.papers.aad1._distill import DistillLog, adversarial_distill, dmd_warmup, imle_init, rollout
from icml26.papers.aad1._nets import CausalChunkGenerator, NetConfig, VideoDenoiser, build
from icml26.papers.aad1._rules import ARMS

__all__ = ["arm_runs", "evaluate", "student_init", "trained_teacher"]

DATA_SEED, EVAL_SEED, TEACHER_SEED, TARGET_SEED = 0, 10_001, 0, 30_000


def _train_state(cfg: Any) -> dict[str, torch.Tensor]:
    data = make_sprite_videos(cfg.train_videos, frames=cfg.net.frames, size=cfg.net.size, seed=DATA_SEED)
    t = train_teacher(data.videos, net=cfg.net, steps=cfg.teacher_steps, batch=cfg.teacher_batch, lr=cfg.teacher_lr,
                      seed=TEACHER_SEED)
    return {k: v.detach().clone() for k, v in t.state_dict().items()}


def _teacher_key(cfg: Any) -> dict[str, Any]:
    return {"what": "teacher", "frames": cfg.net.frames, "size": cfg.net.size, "hidden": cfg.net.teacher_hidden,
           "sigma": SIGMA, "modes": [list(m) for m in COMPASS_MODES], "steps": cfg.teacher_steps,
           "batch": cfg.teacher_batch, "lr": cfg.teacher_lr, "videos": cfg.train_videos,
           "torch": torch.__version__.split("+")[0]}


def trained_teacher(cfg: Any) -> VideoDenoiser:
    """[P24] the teacher of ``cfg`` (eval mode): from the cache folder where there is one, else trained now."""
    state = cached_value("aad1", _teacher_key(cfg), "teacher.pt", partial(_train_state, cfg))
    model = build(VideoDenoiser, cfg.net, seed=TEACHER_SEED)
    model.load_state_dict(state)
    return model.eval()


def _sample_targets(cfg: Any, teacher: VideoDenoiser) -> dict[str, torch.Tensor]:
    data = make_sprite_videos(cfg.init_videos, frames=cfg.net.frames, size=cfg.net.size, seed=TARGET_SEED)
    cond = torch.as_tensor(data.videos[:, 0], dtype=torch.float32)
    parts = [teacher_sample(teacher, cond[i : i + 256], steps=cfg.init_sample_steps, seed=TARGET_SEED + i)[:, 1:]
             for i in range(0, cond.shape[0], 256)]
    return {"cond": cond, "targets": torch.cat(parts)}


def teacher_targets(cfg: Any, teacher: VideoDenoiser) -> dict[str, torch.Tensor]:
    """The teacher's samples the students are initialised on (shared by every seed; cached with the teacher)."""
    key = {"what": "targets", "teacher": _teacher_key(cfg), "n": cfg.init_videos, "steps": cfg.init_sample_steps,
           "seed": TARGET_SEED}
    return cached_value("aad1", key, "targets.pt", partial(_sample_targets, cfg, teacher))


def _init_state(cfg: Any, targets: dict[str, torch.Tensor], seed: int) -> dict[str, torch.Tensor]:
    g = build(CausalChunkGenerator, cfg.net, seed=100 + seed)
    imle_init(g, targets["cond"], targets["targets"], steps=cfg.init_steps, batch=cfg.batch, lr=cfg.init_lr,
              candidates=cfg.init_candidates, seed=seed + 2000)
    return {k: v.detach().clone() for k, v in g.state_dict().items()}


def _init_key(cfg: Any, seed: int) -> dict[str, Any]:
    """What determines seed ``seed``'s initialisation: the teacher, its samples, the student's sizes, IMLE's settings."""
    n = cfg.net
    return {"what": "student-init", "teacher": _teacher_key(cfg), "targets": [cfg.init_videos, cfg.init_sample_steps,
            TARGET_SEED], "student": [n.student_hidden, n.latent, n.cache], "steps": cfg.init_steps,
            "batch": cfg.batch, "lr": cfg.init_lr, "candidates": cfg.init_candidates, "seed": seed}


def student_init(cfg: Any, targets: dict[str, torch.Tensor], seed: int) -> CausalChunkGenerator:
    """Seed ``seed``'s student after its IMLE initialisation on the teacher's samples (ours; the stand-in for the
    paper's student that starts from the pretrained teacher): every arm of the seed starts from it. Cached like the
    teacher, since it is not part of what the arms compare; ``targets`` must be ``teacher_targets(cfg, ...)``."""
    g = build(CausalChunkGenerator, cfg.net, seed=100 + seed)
    g.load_state_dict(cached_value("aad1", _init_key(cfg, seed), "student.pt", partial(_init_state, cfg, targets, seed)))
    return g


def _fluctuation(log: DistillLog, last: int) -> float:
    tail = log.displacement[-last:] if last > 0 else []
    return float(np.std(tail)) if len(tail) >= 2 else float("nan")


def evaluate(generator: CausalChunkGenerator, cond: torch.Tensor, *, net: NetConfig, data_displacement: float,
             seed: int) -> dict[str, Any]:
    """Motion and quality of a student on ``cond``: horizon-length motion, frame error, drift at 2x the horizon."""
    with torch.no_grad():
        long = rollout(generator, cond, frames=2 * net.frames, seed=seed).numpy().astype(np.float64)
    if not np.all(np.isfinite(long)):
        return {"displacement_ratio": float("nan"), "static_rate": float("nan"), "frame_error": float("nan"),
                "drift": float("nan"), "velocity": [], "error_by_frame": [], "example": []}
    m = motion_stats(long[:, : net.frames])
    err = frame_error(long)
    return {"displacement_ratio": m.mean_displacement / data_displacement, "static_rate": m.static_rate,
            "frame_error": float(err[:, 1 : net.frames].mean()), "drift": float(err[:, net.frames :].mean()),
            "velocity": m.velocity.tolist(), "error_by_frame": [float(e) for e in err.mean(axis=0)],
            "example": np.round(long[0], 3).tolist()}


def _part(cfg: Any, state: dict[str, torch.Tensor], targets: dict[str, torch.Tensor],
          job: tuple[int, str]) -> list[dict[str, Any]]:
    """One seed's arms of one part: ``"distill"`` (the DMD warm-up, then DMD only, AAD-1 and the per-chunk GAN from
    it) or ``"adv_only"`` (the bidirectional GAN from the initialisation), so two workers share three seeds evenly."""
    seed, part = job
    net = cfg.net
    data = make_sprite_videos(cfg.train_videos, frames=net.frames, size=net.size, seed=DATA_SEED + 1 + seed)
    common = {"net": net, "batch": cfg.batch, "probe_every": cfg.probe_every}
    adv = {"lr": cfg.adv_lr, "r1": cfg.r1, "noise": cfg.d_noise, "seed": seed + 1000, **common}
    g0 = student_init(cfg, targets, seed)
    students: dict[str, tuple[CausalChunkGenerator, DistillLog]] = {}
    if part == "adv_only":
        students["adv_only"] = (g0, adversarial_distill(g0, data.videos, discriminator="bidirectional",
                                                        steps=cfg.warmup + cfg.adversarial, **adv))
    else:
        teacher = build(VideoDenoiser, net, seed=TEACHER_SEED)
        teacher.load_state_dict(state)
        teacher.eval()
        warm, fake = g0, copy.deepcopy(teacher)
        dmd_warmup(warm, teacher, data.videos, lr=cfg.dmd_lr, steps=cfg.warmup, fake_updates=cfg.fake_updates,
                   fake=fake, seed=seed, **common)
        dmd = copy.deepcopy(warm)  # DMD only continues the warm-up with its fake score
        students["dmd"] = (dmd, dmd_warmup(dmd, teacher, data.videos, lr=cfg.dmd_lr, steps=cfg.adversarial,
                                           fake_updates=cfg.fake_updates, fake=fake, seed=seed + 500, **common))
        for arm, kind in (("aad", "bidirectional"), ("causal", "causal")):
            g = copy.deepcopy(warm)
            students[arm] = (g, adversarial_distill(g, data.videos, discriminator=kind, steps=cfg.adversarial, **adv))
    ev = make_sprite_videos(cfg.eval_videos, frames=net.frames, size=net.size, seed=EVAL_SEED)
    cond = torch.as_tensor(ev.videos[:, 0], dtype=torch.float32)
    data_disp = motion_stats(ev.videos).mean_displacement
    last = max(2, cfg.adversarial // (2 * cfg.probe_every))
    rows = []
    for arm, (g, log) in students.items():
        ev_row = evaluate(g, cond, net=net, data_displacement=data_disp, seed=20_000 + seed)
        rows.append({"seed": seed, "arm": arm, **ev_row, "fluctuation": _fluctuation(log, last),
                     "diverged": bool(log.diverged or not np.isfinite(ev_row["frame_error"])),
                     "probe_displacement": list(log.displacement)})
    return rows


def arm_runs(cfg: Any, seeds: tuple[int, ...], mapper: Any = None) -> dict[str, Any]:
    """Train the teacher once, then every arm for every seed; also the teacher's own motion on the eval frames."""
    teacher = trained_teacher(cfg)
    state = {k: v.detach().clone() for k, v in teacher.state_dict().items()}
    fn = partial(_part, cfg, state, teacher_targets(cfg, teacher))
    jobs = [(s, part) for part in ("distill", "adv_only") for s in seeds]
    per_job = mapper(fn, jobs) if mapper is not None else [fn(j) for j in jobs]
    order = {arm: i for i, arm in enumerate(ARMS)}
    rows = sorted((r for rs in per_job for r in rs), key=lambda r: (seeds.index(r["seed"]), order[r["arm"]]))
    ev = make_sprite_videos(cfg.eval_videos, frames=2 * cfg.net.frames, size=cfg.net.size, seed=EVAL_SEED)
    long_data = ev.videos
    ev = SpriteVideos(videos=ev.videos[:, : cfg.net.frames], velocity=ev.velocity, start=ev.start)
    samples = teacher_sample(teacher, torch.as_tensor(ev.videos[:, 0], dtype=torch.float32),
                             steps=cfg.teacher_sample_steps, seed=EVAL_SEED).numpy().astype(np.float64)
    tm = motion_stats(samples)
    return {"rows": rows,
            "data": {"displacement": motion_stats(ev.videos).mean_displacement, "velocity": ev.velocity.tolist(),
                     "example": np.round(long_data[0], 3).tolist()},
            "teacher": {"displacement_ratio": tm.mean_displacement / motion_stats(ev.videos).mean_displacement,
                        "static_rate": tm.static_rate, "frame_error": float(frame_error(samples)[:, 1:].mean()),
                        "velocity": tm.velocity.tolist(), "example": np.round(samples[0], 3).tolist()}}
