"""What the [P05] claims ``e2e_memory`` and ``e2e_speed`` measure: one Wanda-pruned decoder (built once per run
group through ``ctx.shared``), its linear-layer bytes, its greedy tokens and its decode time in paired rounds.
The verdicts come from :mod:`icml26.papers.macko._rules`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import new_figure, render
from icml26.papers.macko._e2e import build_e2e, decode_agreement, time_decode
from icml26.papers.macko._rules import judge_e2e_memory, judge_e2e_speed, median_ratio

try:  # imported with the claims table, so that the harness's thread limit covers torch's own pool too
    import torch
except ImportError:  # pragma: no cover - the [torch] extra
    torch = None

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.macko.claims import E2EConfig, E2EModel

__all__ = ["check_e2e_memory", "check_e2e_speed", "shared_decoder"]

_LABELS = {"dense32": "dense fp32 (torch)", "dense16": "dense fp16 (ours)", "macko": "MACKO 50%"}
_LABELS_GPU = {"dense16": "dense fp16 (cuBLAS)", "macko": "MACKO 50% (Triton)"}


def shared_decoder(model: E2EModel, seed: int) -> dict[str, Any]:
    """:func:`~icml26.papers.macko._e2e.build_e2e`, run once for the claims of the ``e2e`` group."""
    return build_e2e(model, seed)


def _unavailable(model: E2EModel) -> ClaimResult | None:
    if torch is None:
        return ClaimResult(Verdict.UNSUPPORTED, reason="needs torch (pip install 'icml26[torch]')")
    if model.device == "cuda":
        try:
            import triton  # noqa: F401
        except ImportError:
            return ClaimResult(Verdict.UNSUPPORTED, reason="the GPU budget needs triton (pip install 'icml26[gpu]')")
        if not torch.cuda.is_available():
            return ClaimResult(Verdict.UNSUPPORTED, reason="the GPU budget needs a CUDA GPU")
    return None


def check_e2e_memory(cfg: E2EConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P05]: a Wanda-50 % decoder needs 1.5x less memory for its weights in the MACKO format."""
    missing = _unavailable(cfg.model)
    if missing is not None:
        return missing
    built = ctx.shared(shared_decoder, cfg.model, ctx.seeds[0])
    j = judge_e2e_memory(built["dense16_bytes"], built["macko_bytes"], bars=ctx.bars)
    m = cfg.model
    return ClaimResult.judged(
        j, summary=f"linear-layer weights {built['dense16_bytes'] / 1e6:.1f} -> {built['macko_bytes'] / 1e6:.1f} MB "
                   f"({j.measured['memory_reduction']:.3f}x)",
        notes=f"{m.n_layers} blocks, d = {m.d_model}, FFN 4d, Wanda {m.sparsity:.0%} per output row; embeddings "
              "(tied, dense) not counted")


def check_e2e_speed(cfg: E2EConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P05]: a Wanda-50 % decoder decodes 1.5x faster at fp16 with MACKO (greedy, batch 1)."""
    missing = _unavailable(cfg.model)
    if missing is not None:
        return missing
    assert torch is not None
    built = ctx.shared(shared_decoder, cfg.model, ctx.seeds[0])
    agreement = decode_agreement(built, cfg.model.new_tokens)
    times = time_decode(built, new_tokens=cfg.model.new_tokens, reps=cfg.reps)
    gpu = cfg.model.device == "cuda"
    base = "cuBLAS fp16 (eager, batch 1, launch overhead included)" if gpu else "our dense fp16 GEMV (CPU, 1 thread)"
    j = judge_e2e_speed(times["dense16"], times["macko"], agreement=agreement,
                        weight_bytes=min(built["dense16_bytes"], built["macko_bytes"]), bars=ctx.bars, baseline=base,
                        decide=cfg.decide)
    tps = {k: cfg.model.new_tokens / float(np.median(v)) for k, v in times.items()}
    timings: dict[str, Any] = {"tokens_per_s": tps}
    if "dense32" in times:
        sp32 = median_ratio(times["dense32"], times["macko"])
        timings.update(speedup_vs_dense32_torch=sp32.value, speedup_vs_dense32_torch_ci=[sp32.lo, sp32.hi])
    labels = _LABELS_GPU if gpu else _LABELS
    where = torch.cuda.get_device_name() if gpu else "1 thread"
    fig, ax = new_figure()
    ax.bar([labels[k] for k in tps], list(tps.values()))
    ax.set_ylabel("tokens / s (greedy, batch 1)")
    sp = median_ratio(times["dense16"], times["macko"])
    return ClaimResult.judged(
        j, summary=f"speed {sp.value:.2f}x vs {base}; greedy tokens agree {agreement:.2f}", timings=timings,
        figures=[render(fig, name="e2e_tokens_per_s",
                        caption=f"{cfg.model.n_layers} layers, d={cfg.model.d_model}, {where}")],
        notes="eager decoding: kernel-launch overhead counts for both models, and weighs more at 4 blocks than at "
              "Llama-2-7B's 32; on a CPU the decoder also times torch fp32 (timings: speedup_vs_dense32_torch)")
