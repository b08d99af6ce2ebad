"""The timed [P24] claim: one-step causal rollout of the student against the teacher's multi-step DDIM sampler on the
same conditioning frames, paired per repetition in one process (the order alternates between repetitions)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import new_figure, render
from icml26.papers.aad1._data import make_sprite_videos
from icml26.papers.aad1._diffusion import teacher_sample
from icml26.papers.aad1._distill import rollout
from icml26.papers.aad1._nets import CausalChunkGenerator, VideoDenoiser, build
from icml26.papers.aad1._rules import judge_speed

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.aad1.claims import SpeedConfig

FULL_REASON = ("the paper's speed-up is for a pretrained video diffusion transformer on GPUs; this package times toy "
               "convolutional networks")


def _time(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def check_one_step_speed(cfg: SpeedConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P24] ("one-step"): wall-clock of the student's rollout vs the teacher's sampler, same batch."""
    if cfg.full_scale:
        return ClaimResult(verdict=Verdict.UNSUPPORTED, reason=FULL_REASON, summary="not run (paper scale)")
    seed = ctx.seeds[0]
    teacher = build(VideoDenoiser, cfg.net, seed=seed).eval()
    student = build(CausalChunkGenerator, cfg.net, seed=seed + 1).eval()
    ev = make_sprite_videos(cfg.batch, frames=cfg.net.frames, size=cfg.net.size, seed=seed)
    cond = torch.as_tensor(ev.videos[:, 0], dtype=torch.float32)

    def run_teacher() -> None:
        teacher_sample(teacher, cond, steps=cfg.teacher_steps, seed=seed)

    def run_student() -> None:
        with torch.no_grad():
            rollout(student, cond, frames=cfg.net.frames, seed=seed)

    run_teacher()
    run_student()  # warm-up (first-call allocations), not timed
    rows: list[dict[str, Any]] = []
    for r in range(cfg.reps):
        if r % 2:
            s, t = _time(run_student), _time(run_teacher)
        else:
            t, s = _time(run_teacher), _time(run_student)
        rows.append({"rep": r, "teacher_s": t, "student_s": s})
    j = judge_speed(rows, bars=ctx.bars)
    fig, ax = new_figure()
    for i, key in enumerate(("teacher_s", "student_s")):
        v = np.array([row[key] for row in rows]) * 1e3
        ax.bar(i, v.mean(), color=f"C{i}")
        ax.scatter(np.full(v.size, i), v, color="black", s=10, zorder=3)
    ax.set_xticks([0, 1], [f"teacher ({cfg.teacher_steps}-step DDIM)", f"student ({cfg.net.frames - 1} one-step "
                                                                         "chunks)"])
    ax.set(ylabel=f"ms per batch of {cfg.batch} videos", yscale="log")
    mt = float(np.mean([r["teacher_s"] for r in rows]))
    ms = float(np.mean([r["student_s"] for r in rows]))
    return ClaimResult.judged(
        j, summary=f"teacher {mt * 1e3:.1f} ms, student {ms * 1e3:.2f} ms per batch ({mt / ms:.1f}x)", rows=rows,
        figures=[render(fig, name="sampling_time", caption="Wall-clock to generate one batch of videos: the "
                        "bidirectional teacher's multi-step sampler vs the causal one-step student (dots: "
                        "repetitions).")],
        notes="Weights come from each network's initialisation: wall-clock depends on the architecture and the "
              "number of network calls, not on the trained values.")
