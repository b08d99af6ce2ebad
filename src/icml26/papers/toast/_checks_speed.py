"""What the [P35] throughput claim measures: dense vs ToaSt latency at the DeiT-S shape, beside the MAC ratio."""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import new_figure, render
from icml26.papers.toast._latency import throughput_times
from icml26.papers.toast._rules import judge_throughput

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.toast.claims import ThroughputConfig


def check_throughput(cfg: ThroughputConfig, ctx: Context) -> ClaimResult:
    """[P35] results (DeiT-S, 2.7 GFLOPs): 2.01x the dense model's throughput on an H100 at batch 128."""
    if importlib.util.find_spec("transformers") is None:
        return ClaimResult(Verdict.UNSUPPORTED, reason="transformers is not installed: pip install 'icml26[models]'")
    if cfg.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            return ClaimResult(Verdict.UNSUPPORTED, reason="this budget times the models on a CUDA GPU; none is here")
    res = ctx.map(throughput_times, [(cfg, ctx.seeds[0])])[0]
    j = judge_throughput(res["times"], bars=ctx.bars, macs_dense=res["macs_dense"], macs_toast=res["macs_toast"])
    t = res["times"]
    med = {k: float(np.median([r[f"{k}_s"] for r in t])) for k in ("dense", "toast", "dense_eager")}
    fig, ax = new_figure()
    ax.bar(range(3), [1e3 * med[k] for k in med], color=["C7", "C0", "C8"])
    ax.set_xticks(range(3), ["dense (SDPA)", "ToaSt (re-packed, gathered)", "dense (eager attention)"])
    ax.set(ylabel=f"median latency per batch of {cfg.batch} (ms)",
           title=f"{res['device']}; MAC ratio {res['macs_dense'] / res['macs_toast']:.2f}")
    timings = {"median_s": med, "device": res["device"],
               "speedup_vs_eager_dense": med["dense_eager"] / med["toast"]}
    return ClaimResult.judged(
        j, summary=(f"MACs {res['macs_dense'] / 1e9:.3f} G -> {res['macs_toast'] / 1e9:.3f} G (ratio "
                    f"{res['macs_dense'] / res['macs_toast']:.2f}); median latency dense {1e3 * med['dense']:.1f} ms, "
                    f"ToaSt {1e3 * med['toast']:.1f} ms ({med['dense'] / med['toast']:.2f}x) on {res['device']}"),
        rows=t, timings=timings,
        measured={"macs_dense": res["macs_dense"], "macs_toast": res["macs_toast"]},
        figures=[render(fig, name="latency", caption=(
            "Median latency of one forward pass at the DeiT-S shape: the dense ViT with SDPA attention, ToaSt "
            "(SCWP re-packed, TCS gathered) and the dense ViT with eager attention."))],
        findings={"ToaSt vs dense with eager attention (ours)": f"{med['dense_eager'] / med['toast']:.2f}x"},
        notes=(f"batch {cfg.batch}, {cfg.rounds} paired rounds, order rotated each round; head sparsity "
               f"{cfg.sparsity:g}, fc1 {list(cfg.fc1_ratios)}, fc2 {list(cfg.fc2_ratios)}; random weights "
               "(the values do not change the cost)."))
