"""What the [P05] claims ``memory_reduction`` and ``spmv_speedup_50`` measure (CPU); the verdicts come from
:mod:`icml26.papers.macko._rules`. The GPU branch of the speed claim is in ``_checks_gpu.py``."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.figures import new_figure, render
from icml26.papers.macko._kernels import best_isa, dense_fp16_gemv
from icml26.papers.macko._matrix import MackoMatrix
from icml26.papers.macko._rules import judge_memory, judge_spmv_speed, median_ratio
from icml26.papers.macko._storage import break_even_density, csr_bytes, dense_fp16_bytes, macko_expected_bytes
from icml26.papers.macko._timing import n_copies, paired_rounds

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.macko.claims import MemoryConfig, SpeedConfig

__all__ = ["check_memory", "check_speed", "random_sparse"]


def random_sparse(rows: int, cols: int, density: float, seed: int) -> np.ndarray:
    """An fp16 matrix of standard normals with an i.i.d. mask of ``density`` (the paper's random-mask setting)."""
    g = np.random.default_rng(seed)
    w = g.standard_normal((rows, cols), dtype=np.float32).astype(np.float16)
    w[g.random((rows, cols), dtype=np.float32) >= density] = 0
    return w


def check_memory(cfg: MemoryConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P05]: 1.5x memory reduction at 50 % sparsity; break-even with dense fp16 near density 0.8."""
    dense = dense_fp16_bytes(cfg.rows, cfg.cols)
    rows = []
    for s in cfg.sparsities:
        A = MackoMatrix.from_dense(random_sparse(cfg.rows, cfg.cols, 1.0 - s, ctx.seeds[0]))
        rows.append({
            "sparsity": s, "density": A.density, "macko_ratio": A.nbytes / dense,
            "expected_ratio": macko_expected_bytes(cfg.rows, cfg.cols, 1.0 - s) / dense,
            "csr16_ratio": csr_bytes(cfg.rows, cfg.cols, A.nnz) / dense,
            "csr32_ratio": csr_bytes(cfg.rows, cfg.cols, A.nnz, value_bytes=4) / dense,
            "padding_frac": (A.n_stored - A.nnz) / max(A.n_stored, 1),
        })
    dens = np.array([r["density"] for r in rows])[::-1]
    col = {k: np.array([r[k] for r in rows])[::-1] for k in ("macko_ratio", "csr16_ratio", "csr32_ratio")}
    be = {k: break_even_density(dens, v) for k, v in col.items()}
    at50 = min(rows, key=lambda r: abs(r["sparsity"] - 0.5))["macko_ratio"]
    j = judge_memory(at50, be["macko_ratio"], bars=ctx.bars)
    fig, ax = new_figure()
    for k, lab in (("macko_ratio", "MACKO"), ("csr16_ratio", "CSR fp16+int32"), ("csr32_ratio", "CSR fp32+int32")):
        ax.plot(dens, col[k], marker="o", label=lab)
    ax.axhline(1.0, color="k", lw=0.8, ls="--", label="dense fp16")
    ax.set_xlabel("density")
    ax.set_ylabel("bytes / dense fp16 bytes")
    ax.legend()
    return ClaimResult.judged(
        j, summary=f"{at50:.4f}x dense at 50% ({1 / at50:.2f}x smaller); break-even d = {be['macko_ratio']:.3f}",
        measured={"break_even_by_format": be}, rows=rows,
        findings={"csr_break_even": f"CSR fp16+int32 breaks even with dense fp16 at d = {be['csr16_ratio']:.3f}, "
                                    f"CSR fp32+int32 at d = {be['csr32_ratio']:.3f}"},
        figures=[render(fig, name="memory_vs_density", caption=f"Bytes relative to dense fp16, {cfg.rows}x{cfg.cols}")],
    )


def _macko_matvec(A: MackoMatrix, x: np.ndarray) -> object:
    return A.matvec(x)


def _dense_fp16(w: np.ndarray, x: np.ndarray) -> object:
    return dense_fp16_gemv(w, x)


def _numpy_fp32(w: np.ndarray, x: np.ndarray) -> object:
    return w @ x


def check_speed(cfg: SpeedConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P05]: 1.2-1.5x faster than dense at 50 % sparsity. On a CPU (one thread): our C++ kernel
    against our dense fp16 GEMV, numpy fp32 beside it; ``cfg.gpu``: the Triton kernel against cuBLAS."""
    if cfg.gpu:
        from icml26.papers.macko._checks_gpu import gpu_speed

        return gpu_speed(cfg, ctx)
    w16 = random_sparse(cfg.n, cfg.n, cfg.density, ctx.seeds[0])
    A = MackoMatrix.from_dense(w16)
    w32 = w16.astype(np.float32)
    x = np.random.default_rng(ctx.seeds[0] + 1).standard_normal(cfg.n).astype(np.float32)
    err = float(np.max(np.abs(A.matvec(x) - (w32 @ x))) / max(float(np.max(np.abs(w32 @ x))), 1e-30))
    # rotated copies so that every timed call streams its operand from DRAM (none at 8192^2: each matrix > L3)
    k_m, k_16, k_32 = (n_copies(b, cfg.stream_bytes) for b in (A.nbytes, w16.nbytes, w32.nbytes))
    As = [A] + [MackoMatrix._trusted(A.values.copy(), A.deltas.copy(), A.row_ptr.copy(), A.shape)
                for _ in range(k_m - 1)]
    w16s = [w16] + [w16.copy() for _ in range(k_16 - 1)]
    w32s = [w32] + [w32.copy() for _ in range(k_32 - 1)]
    t = paired_rounds({"macko": [functools.partial(_macko_matvec, a, x) for a in As],
                       "dense_fp16": [functools.partial(_dense_fp16, w, x) for w in w16s],
                       "dense_fp32_numpy": [functools.partial(_numpy_fp32, w, x) for w in w32s]}, cfg.reps)
    j = judge_spmv_speed(t["dense_fp16"], t["macko"], bars=ctx.bars, baseline="our dense fp16 GEMV (CPU, 1 thread)",
                         decide=cfg.decide)
    s32 = median_ratio(t["dense_fp32_numpy"], t["macko"])
    ms = {k: float(np.median(v) * 1e3) for k, v in t.items()}
    gbs = A.nbytes / (ms["macko"] * 1e-3) / 1e9
    fig, ax = new_figure()
    ax.bar(list(ms), list(ms.values()))
    ax.set_ylabel("ms per SpMV/GEMV (median)")
    ax.set_title(f"{cfg.n}x{cfg.n}, density {cfg.density}, 1 thread, {best_isa()}")
    s16 = median_ratio(t["dense_fp16"], t["macko"])
    return ClaimResult.judged(
        j, summary=f"{s16.value:.2f}x vs dense fp16, {s32.value:.2f}x vs numpy dense fp32 (CPU, 1 thread)",
        measured={"n": cfg.n, "isa": best_isa(), "rel_err": err, "macko_bytes": A.nbytes,
                  "dense_fp16_bytes": w16.nbytes, "rounds": cfg.reps,
                  "copies": {"macko": k_m, "dense_fp16": k_16, "dense_fp32_numpy": k_32}},
        timings={"speedup_vs_dense_fp32_numpy": s32.value, "speedup_vs_dense_fp32_numpy_ci": [s32.lo, s32.hi],
                 "ms": ms, "macko_GBps": gbs},
        rows=[{"kernel": k, "ms_median": ms[k], "ms_min": float(v.min() * 1e3)} for k, v in t.items()],
        figures=[render(fig, name="spmv_time", caption="Time of one matrix-vector product, single thread")],
        notes=(f"CPU adaptation of the GPU kernel; median MACKO {ms['macko']:.2f} ms ({gbs:.1f} GB/s), dense fp16 "
               f"{ms['dense_fp16']:.2f} ms, numpy dense fp32 {ms['dense_fp32_numpy']:.2f} ms (median per-round "
               f"speedup {s32}); rotated copies {k_m}/{k_16}/{k_32}; rel. error vs dense fp32 {err:.1e}"),
    )
