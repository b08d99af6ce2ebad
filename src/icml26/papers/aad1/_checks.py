"""What the [P24] training claims measure: the four student arms of :mod:`._arms` (shared by run group ``arms``),
judged by :mod:`._rules`, with motion histograms, drift curves and training traces."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import FigureData, new_figure, render
from icml26.papers.aad1._arms import arm_runs
from icml26.papers.aad1._data import COMPASS_MODES
from icml26.papers.aad1._rules import ARMS, judge_collapse, judge_drift, judge_motion, judge_stability

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.aad1.claims import ArmsConfig

FULL_REASON = ("the paper's scale (distilling a pretrained image-to-video diffusion transformer into a one-step "
               "causal generator, evaluated on VBench) needs a video model and GPUs; this package trains toy "
               "convolutional networks on 12×12 sprite videos")
LABEL = {"dmd": "DMD only", "aad": "AAD-1 (DMD → bidirectional GAN)", "causal": "DMD → per-chunk GAN",
         "adv_only": "bidirectional GAN, no warm-up"}
COLOR = {"dmd": "C0", "aad": "C1", "causal": "C2", "adv_only": "C3"}
ROW_KEYS = ("seed", "arm", "displacement_ratio", "static_rate", "frame_error", "drift", "fluctuation", "diverged")


def _unsupported() -> ClaimResult:
    return ClaimResult(verdict=Verdict.UNSUPPORTED, reason=FULL_REASON, summary="not run (paper scale)")


def _runs(cfg: ArmsConfig, ctx: Context) -> dict[str, Any]:
    return ctx.shared(arm_runs, cfg, tuple(ctx.seeds), ctx.mapper)


def _table(runs: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: r[k] for k in ROW_KEYS} for r in runs["rows"]]


def _mean(runs: dict[str, Any], arm: str, key: str) -> float:
    v = [r[key] for r in runs["rows"] if r["arm"] == arm]
    return float(np.mean(v)) if v else float("nan")


def _modes(velocity: list[list[float]]) -> str:
    """Share of videos nearest each data velocity mode (by the video's mean (Δx, Δy) per frame); static videos
    (|v| < 0.5 px/frame) count apart."""
    if not velocity:
        return "no videos"
    v = np.asarray(velocity, dtype=float).reshape(-1, 2)
    modes = np.asarray(COMPASS_MODES)
    near = np.argmin(np.linalg.norm(v[:, None, :] - modes[None], axis=-1), axis=1)
    still = np.linalg.norm(v, axis=1) < 0.5
    parts = [f"({m[0]:+.0f},{m[1]:+.0f}): {np.mean((near == i) & ~still):.2f}" for i, m in enumerate(modes)]
    return ", ".join([*parts, f"static: {np.mean(still):.2f}"])


def _mode_findings(runs: dict[str, Any]) -> dict[str, str]:
    out = {"velocity modes, data": _modes(runs["data"]["velocity"]),
           "velocity modes, teacher": _modes(runs["teacher"]["velocity"])}
    for arm in ARMS:
        out[f"velocity modes, {LABEL[arm]}"] = _modes([x for r in runs["rows"] if r["arm"] == arm
                                                      for x in r["velocity"]]) + " (not judged)"
    return out


def _panels(runs: dict[str, Any]) -> list[tuple[str, list[Any], Any]]:
    """(label, per-video velocities, example video) of the data, the teacher and every arm (first seed's example)."""
    out = [("data", runs["data"]["velocity"], runs["data"]["example"]),
           ("teacher (50 steps)", runs["teacher"]["velocity"], runs["teacher"]["example"])]
    for arm in ARMS:
        rows = [r for r in runs["rows"] if r["arm"] == arm]
        out.append((LABEL[arm], [x for r in rows for x in r["velocity"]], rows[0]["example"] if rows else []))
    return out


def _histogram(runs: dict[str, Any]) -> FigureData:
    fig, ax = new_figure(width=9.0, height=6.0)
    ax.remove()
    axes = fig.subplots(2, 3, sharex=True, sharey=True).ravel()
    edges = np.arange(-2.125, 2.2, 0.25)  # bins centred on multiples of 0.25 px
    modes = np.asarray(COMPASS_MODES)
    for a, (label, vel, _) in zip(axes, _panels(runs)):
        v = np.asarray(vel, dtype=float).reshape(-1, 2)
        a.hist2d(v[:, 0], v[:, 1], bins=[edges, edges], cmap="Greys", density=True)
        a.scatter(modes[:, 0], modes[:, 1], marker="+", color="C3", s=40)
        a.set_title(label.replace(" (", "\n("), fontsize=9)
    for a in axes[3:]:
        a.set_xlabel("Δx per frame (px)")
    for a in axes[::3]:
        a.set_ylabel("Δy per frame (px)")
    return render(fig, name="motion_histogram", caption="Mean velocity (centroid displacement per frame) of each "
                  "video, all seeds: red crosses mark the data's eight velocity modes; static videos sit at (0, 0).")


def _frames(runs: dict[str, Any], horizon: int) -> FigureData:
    panels = [p for p in _panels(runs) if len(p[2])]
    cols = max(len(p[2]) for p in panels)
    fig, ax = new_figure(width=10.0, height=0.75 * len(panels) + 0.6)
    ax.remove()
    axes = np.asarray(fig.subplots(len(panels), cols, squeeze=False))
    for i, (label, _, video) in enumerate(panels):
        for k in range(cols):
            a = axes[i, k]
            a.set_xticks([])
            a.set_yticks([])
            a.grid(False)
            if k < len(video):
                a.imshow(np.asarray(video[k]), cmap="gray", vmin=-1.0, vmax=1.0)
            else:
                a.axis("off")
            if i == 0:
                a.set_title(f"{k}{'*' if k == horizon else ''}", fontsize=9)
        axes[i, 0].set_ylabel(label.split(" (")[0], rotation=0, ha="right", va="center", fontsize=9)
    return render(fig, name="frames", caption=f"One conditioning frame (frame 0) rolled out by each model, first "
                  f"seed: frames 0-{cols - 1}; the training horizon ends before frame {horizon}*; the teacher samples "
                  "the training horizon only.")


def _ratios(runs: dict[str, Any]) -> FigureData:
    fig, ax = new_figure()
    for i, arm in enumerate(ARMS):
        v = [r["displacement_ratio"] for r in runs["rows"] if r["arm"] == arm]
        ax.scatter(np.full(len(v), i), v, color=COLOR[arm])
        if v:
            ax.hlines(float(np.mean(v)), i - 0.3, i + 0.3, color=COLOR[arm])
    ax.axhspan(0.8, 1.2, color="green", alpha=0.1, label="within 20 % of the data")
    ax.set_xticks(range(len(ARMS)), [LABEL[a].replace(" (", "\n(") for a in ARMS], fontsize=7)
    ax.set(ylabel="mean |Δp| / data's (dots: seeds)")
    ax.legend(fontsize=7)
    return render(fig, name="displacement_ratio", caption="Motion kept by each arm: mean displacement per frame over "
                  "the data's, one dot per seed.")


def check_motion_kept(cfg: ArmsConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P24]: with the bidirectional holistic discriminator the causal student keeps the data's motion."""
    if cfg.full_scale:
        return _unsupported()
    runs = _runs(cfg, ctx)
    j = judge_motion(runs["rows"], bars=ctx.bars)
    t = runs["teacher"]
    return ClaimResult.judged(
        j, summary=(f"AAD-1: displacement ratio {_mean(runs, 'aad', 'displacement_ratio'):.3f}, static "
                    f"{_mean(runs, 'aad', 'static_rate'):.3f}, frame error {_mean(runs, 'aad', 'frame_error'):.4f}"),
        rows=_table(runs), figures=[_frames(runs, cfg.net.frames), _histogram(runs), _ratios(runs)],
        findings={"teacher": f"displacement ratio {t['displacement_ratio']:.3f}, static {t['static_rate']:.3f}, "
                             f"frame error {t['frame_error']:.4f} (not judged)",
                  "DMD only": f"displacement ratio {_mean(runs, 'dmd', 'displacement_ratio'):.3f}, frame error "
                              f"{_mean(runs, 'dmd', 'frame_error'):.4f} (not judged)", **_mode_findings(runs)})


def check_causal_collapse(cfg: ArmsConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P24]: symmetric (per-chunk) adversarial distillation collapses toward static videos."""
    if cfg.full_scale:
        return _unsupported()
    runs = _runs(cfg, ctx)
    j = judge_collapse(runs["rows"], bars=ctx.bars)
    return ClaimResult.judged(
        j, summary=(f"displacement ratio: per-chunk {_mean(runs, 'causal', 'displacement_ratio'):.3f}, AAD-1 "
                    f"{_mean(runs, 'aad', 'displacement_ratio'):.3f}; static: per-chunk "
                    f"{_mean(runs, 'causal', 'static_rate'):.3f}"),
        rows=_table(runs), figures=[_histogram(runs), _ratios(runs)],
        findings=_mode_findings(runs))


def check_warmup_stability(cfg: ArmsConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P24]: the DMD warm-up stabilises the adversarial phase."""
    if cfg.full_scale:
        return _unsupported()
    runs = _runs(cfg, ctx)
    j = judge_stability(runs["rows"], bars=ctx.bars)
    fig, ax = new_figure()
    for r in runs["rows"]:
        if r["arm"] in ("aad", "adv_only") and r["probe_displacement"]:
            steps = np.arange(1, len(r["probe_displacement"]) + 1) * cfg.probe_every
            if r["arm"] == "aad":
                steps = steps + cfg.warmup
            ax.plot(steps, r["probe_displacement"], color=COLOR[r["arm"]], alpha=0.7,
                    label=LABEL[r["arm"]] if r["seed"] == ctx.seeds[0] else None)
    ax.axhline(runs["data"]["displacement"], color="black", ls="--", label="data")
    ax.set(xlabel="generator step", ylabel="probe mean |Δp| per frame (px)")
    ax.legend(fontsize=7)
    return ClaimResult.judged(
        j, summary=(f"probe fluctuation: no warm-up {_mean(runs, 'adv_only', 'fluctuation'):.3f} px, AAD-1 "
                    f"{_mean(runs, 'aad', 'fluctuation'):.3f} px"), rows=_table(runs),
        figures=[render(fig, name="training_traces", caption="Student motion over adversarial training, one line "
                        "per seed: with the DMD warm-up (AAD-1, starting after the warm-up) and without.")],
        findings={LABEL[arm]: f"frame error {_mean(runs, arm, 'frame_error'):.4f}, static "
                              f"{_mean(runs, arm, 'static_rate'):.3f}, displacement ratio "
                              f"{_mean(runs, arm, 'displacement_ratio'):.3f} (not judged)"
                  for arm in ("adv_only", "aad")})


def check_drift(cfg: ArmsConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P24] ("long-range drift"): frames at twice the training horizon stay closer to clean sprites."""
    if cfg.full_scale:
        return _unsupported()
    runs = _runs(cfg, ctx)
    j = judge_drift(runs["rows"], bars=ctx.bars)
    fig, ax = new_figure()
    for arm in ARMS:
        curves = [r["error_by_frame"] for r in runs["rows"] if r["arm"] == arm and r["error_by_frame"]]
        if curves:
            ax.plot(np.mean(curves, axis=0), color=COLOR[arm], label=LABEL[arm])
    ax.axvline(cfg.net.frames - 0.5, color="gray", ls=":", label="training horizon")
    ax.set(xlabel="frame", ylabel="frame error (MSE to nearest clean sprite)", yscale="log")
    ax.legend(fontsize=7)
    return ClaimResult.judged(
        j, summary=(f"drift at 2x horizon: AAD-1 {_mean(runs, 'aad', 'drift'):.4f}, DMD only "
                    f"{_mean(runs, 'dmd', 'drift'):.4f}"), rows=_table(runs),
        figures=[render(fig, name="drift", caption="Frame error along 16-frame rollouts (twice the 8-frame training "
                        "horizon), mean over videos and seeds.")])
