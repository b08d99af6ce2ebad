"""What ``gpu_speedup`` of [P30] measures: UniSparse attention (selection + block-sparse kernel) against full attention
in paired rounds, on structured synthetic q/k/v. On a GPU (``cfg.gpu``): the Triton kernel in bf16 against torch
SDPA's FlashAttention backend; on a CPU: the native kernel against torch SDPA (a measurement only: the claim is
about GPUs, so the harness reports it unsupported there)."""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import new_figure, render
from icml26.papers.unisparse._attention import block_sparse_attention, full_attention
from icml26.papers.unisparse._rules import judge_speed
from icml26.papers.unisparse._synthetic import structured_qkv
from icml26.papers.unisparse._unisparse import unisparse_mask

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.unisparse.claims import SpeedConfig


def _timer(gpu: bool) -> Callable[[Callable[[], Any]], float]:
    def run(fn: Callable[[], Any]) -> float:
        if gpu:
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        if gpu:
            torch.cuda.synchronize()
        return time.perf_counter() - t0

    return run


def _flash(gpu: bool) -> Any:
    if not gpu:
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return sdpa_kernel(SDPBackend.FLASH_ATTENTION)


def _uni(q: Any, k: Any, v: Any, cfg: SpeedConfig, backend: str) -> tuple[Any, float]:
    mask = unisparse_mask(q, k, block=cfg.block, cq=cfg.cq, ck=cfg.ck, tau=cfg.tau, granularities=cfg.granularities)
    return block_sparse_attention(q, k, v, mask, backend=backend), mask.density


def _rounds(cfg: SpeedConfig, n: int, seed: int, gpu: bool) -> dict[str, Any]:
    q, k, v = structured_qkv(cfg.heads, n, cfg.d, seed=seed)
    if gpu:
        q, k, v = (x.to("cuda", torch.float16) for x in (q, k, v))
    backend = "triton" if gpu else "auto"
    timer = _timer(gpu)
    with _flash(gpu):
        full = functools.partial(full_attention, q, k, v)
        uni = functools.partial(_uni, q, k, v, cfg, backend)
        ref, (out, density) = full(), uni()  # warm-up (and the Triton compile)
        sel = functools.partial(unisparse_mask, q, k, block=cfg.block, cq=cfg.cq, ck=cfg.ck, tau=cfg.tau,
                                granularities=cfg.granularities)
        times: dict[str, list[float]] = {"full": [], "unisparse": [], "selection": []}
        for r in range(cfg.rounds):
            order = (("full", full), ("unisparse", uni)) if r % 2 == 0 else (("unisparse", uni), ("full", full))
            for name, fn in order:
                times[name].append(timer(fn))
            times["selection"].append(timer(sel))
    err = float((out.float() - ref.float()).norm() / ref.float().norm())
    return {"n": n, "density": density, "rel_error": err, "times": times}


def check_gpu_speedup(cfg: SpeedConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P30]: up to 2.61x faster attention than FlashAttention (GPU); UniSparse's time includes its
    block selection (fp16 on a GPU)."""
    gpu = bool(cfg.gpu)
    if gpu and not torch.cuda.is_available():
        return ClaimResult(Verdict.UNSUPPORTED, reason="the budget times the Triton kernel on a GPU; none is visible")
    runs = [_rounds(cfg, n, ctx.seeds[0], gpu) for n in cfg.ns]
    times = {str(r["n"]): {k: r["times"][k] for k in ("full", "unisparse")} for r in runs}
    j = judge_speed(times, bars=ctx.bars, decide=cfg.decide)
    ms = {str(r["n"]): {k: float(np.median(v) * 1e3) for k, v in r["times"].items()} for r in runs}
    fig, ax = new_figure()
    xs = [r["n"] for r in runs]
    for key in ("full", "unisparse", "selection"):
        ax.plot(xs, [ms[str(x)][key] for x in xs], marker="o", label=key)
    ax.set(xscale="log", yscale="log", xlabel="sequence length", ylabel="ms (median)",
           title=f"{'GPU (Triton, fp16)' if gpu else 'CPU (native kernel, fp32)'}, H={cfg.heads}, d={cfg.d}")
    ax.legend()
    best = max(j.timings["speedup_by_n"].items(), key=lambda kv: kv[1][0])
    return ClaimResult.judged(
        j, summary=f"best median speedup {best[1][0]:.2f}x at n={best[0]} "
                   f"({'GPU' if gpu else 'CPU, native kernel vs torch SDPA'})",
        measured={"density": {str(r["n"]): r["density"] for r in runs}, "platform": "gpu" if gpu else "cpu"},
        timings={"ms": ms, "rel_error": {str(r["n"]): r["rel_error"] for r in runs}},
        figures=[render(fig, name="attention_time", caption="Median time of full attention, UniSparse (selection + "
                                                            "kernel) and its selection alone.")])
