"""What the [P22] claims measure: the embedding's operating point (the weakest swept strength that carries the
shares through the channel on calibration secrets), one shared stego run per (pipeline config, seed, strength), then
extraction under the channel, the key-dependent baseline, posterior reconstruction against descreening, and
steganalysis at every strength (the capacity / security trade-off), judged at the operating point.

Verdicts come from :mod:`._rules`; figures from :mod:`._figures`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.common.validation import choice
from icml26.papers.kistego._attacks import distort, psnr, ssim
from icml26.papers.kistego._baselines import descreen, keyed_hide, keyed_reveal
from icml26.papers.kistego._figures import cover_stego_figure, fidelity_figure, stego_figure, tradeoff_figure
from icml26.papers.kistego._halftone import encode_shares, extract
from icml26.papers.kistego._pipeline import embed, reconstruct
from icml26.papers.kistego._priors import DiffusionPrior, GaussianProcessPrior
from icml26.papers.kistego._rules import judge_extraction, judge_fidelity, judge_steganalysis
from icml26.papers.kistego._sampler import guided_sample
from icml26.papers.kistego._steganalysis import cnn_auc, logistic_auc
from icml26.papers.kistego._unet import digits_images, digits_prior

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.kistego.claims import ExtractionConfig, FidelityConfig, PipelineConfig, StegConfig


def load_prior(cfg: PipelineConfig) -> DiffusionPrior:
    """The pipeline's prior: the cached digits DDPM, or the analytic GP prior (smoke)."""
    if cfg.prior == "gp":
        return GaussianProcessPrior(cfg.size, length_scale=cfg.gp_length_scale)
    return digits_prior(width=cfg.unet_width, train_steps=cfg.unet_steps)


CALIBRATION = 97  # held-out digits reserved for choosing the operating point; the test secrets are the other 200


def secrets_for(cfg: PipelineConfig, seed: int, *, split: str = "test") -> np.ndarray:
    """Secrets for ``seed``: ``split="test"`` draws ``cfg.images`` from the held-out digits past :data:`CALIBRATION`,
    ``"calibration"`` takes ``cfg.calibration_images`` from the first :data:`CALIBRATION` (disjoint); the GP prior
    (smoke) draws its own samples with disjoint seeds."""
    split = choice(split, "split", ("test", "calibration"))
    n = cfg.images if split == "test" else cfg.calibration_images
    if cfg.prior == "gp":
        g = GaussianProcessPrior(cfg.size, length_scale=cfg.gp_length_scale)
        base = 10_000 if split == "test" else 20_000
        return ((g.sample_x0(n, seed=base + seed)[:, 0].numpy() + 1) / 2).clip(0, 1).astype(np.float64)
    pool = digits_images(size=cfg.size, split="heldout")
    part = pool[CALIBRATION:] if split == "test" else pool[:CALIBRATION]
    return part[np.random.default_rng(seed).choice(len(part), min(n, len(part)), replace=False)]


def _embed_and_channel(cfg: PipelineConfig, secrets: np.ndarray, guidance: float, seed: int) -> dict[str, Any]:
    prior = load_prior(cfg)
    shares = [encode_shares(s, factor=cfg.factor) for s in secrets]
    stego = embed(shares, prior, steps=cfg.embed_steps, guidance=guidance, seed=seed, cell=cfg.cell,
                  margin=cfg.margin)
    distorted = np.stack([distort(x, quality=cfg.quality, noise=cfg.noise, seed=seed * 1000 + i)
                          for i, x in enumerate(stego)])
    return {"secrets": secrets, "bits": np.stack([s.bits for s in shares]), "stego": stego, "distorted": distorted,
            "extracted_clean": np.stack([extract(x, cell=cfg.cell) for x in stego]),
            "extracted": np.stack([extract(x, cell=cfg.cell) for x in distorted]), "guidance": guidance}


def operating_point(cfg: PipelineConfig) -> dict[str, Any]:
    """The rule fixed before the run: the weakest strength in ``cfg.strengths`` whose mean bit accuracy after the
    channel on the calibration secrets reaches ``cfg.target_accuracy`` (the strongest if none does)."""
    secrets = secrets_for(cfg, 0, split="calibration")
    acc = {}
    for g in sorted(cfg.strengths):
        run = _embed_and_channel(cfg, secrets, g, seed=90_000)
        acc[g] = float((run["extracted"] == run["bits"]).mean())
    ok = [g for g in sorted(acc) if acc[g] >= cfg.target_accuracy]
    return {"guidance": ok[0] if ok else max(acc), "reached": bool(ok), "calibration_accuracy": acc}


def stego_run(cfg: PipelineConfig, seed: int, guidance: float | None = None) -> dict[str, Any]:
    """Test secrets -> shares -> stego images at ``guidance`` (default: :func:`operating_point`) -> channel ->
    extracted bits, for one seed (shared by the claims)."""
    g = operating_point(cfg)["guidance"] if guidance is None else guidance
    return _embed_and_channel(cfg, secrets_for(cfg, seed), g, seed)


def _share_bits(images: np.ndarray, factor: int) -> np.ndarray:
    return np.stack([encode_shares(np.clip(x, 0, 1), factor=factor).bits for x in images])


def check_keyfree_extraction(cfg: ExtractionConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P22]: shares are extracted without any key; a key-dependent inversion scheme needs its key."""
    p = cfg.pipeline
    rows, last = [], {}
    op = ctx.shared(operating_point, p)
    for seed in ctx.seeds:
        run = ctx.shared(stego_run, p, seed, op["guidance"])
        prior = ctx.shared(load_prior, p)
        cover = keyed_hide(run["secrets"], prior, key=seed, steps=cfg.inversion_steps)
        right = keyed_reveal(cover, prior, key=seed, steps=cfg.inversion_steps)
        wrong = keyed_reveal(cover, prior, key=seed + 7919, steps=cfg.inversion_steps)
        b = run["bits"]
        rb, wb = _share_bits(right, p.factor), _share_bits(wrong, p.factor)
        for i in range(len(b)):
            rows.append({"seed": seed, "image": i, "acc_clean": float((run["extracted_clean"][i] == b[i]).mean()),
                         "acc_distorted": float((run["extracted"][i] == b[i]).mean()),
                         "acc_right_key": float((rb[i] == b[i]).mean()), "acc_wrong_key": float((wb[i] == b[i]).mean()),
                         "acc_chance": float((b[(i + 1) % len(b)] == b[i]).mean()),
                         "psnr_right_key": psnr(np.clip(right[i], 0, 1), run["secrets"][i])})
        last = {"run": run, "right": right, "wrong": wrong}
    j = judge_extraction(rows, bars=ctx.bars)
    mean = {k: float(np.mean([r[k] for r in rows])) for k in ("acc_clean", "acc_distorted", "acc_right_key",
                                                              "acc_wrong_key", "acc_chance", "psnr_right_key")}
    summary = (f"bit accuracy clean {mean['acc_clean']:.4f}, after channel {mean['acc_distorted']:.4f}; "
               f"keyed baseline {mean['acc_right_key']:.3f} (right key) vs {mean['acc_wrong_key']:.3f} (wrong key), "
               f"chance {mean['acc_chance']:.3f}")
    return ClaimResult.judged(
        j, summary=summary, rows=rows, measured={"means": mean},
        figures=[stego_figure(last["run"], last["right"], last["wrong"])],
        findings={"keyed baseline with its right key (ours)": (
            f"share accuracy {mean['acc_right_key']:.3f}, secret PSNR {mean['psnr_right_key']:.2f} dB after "
            "DDIM inversion through our small prior, whose sampler clips x̂_0 to [-1, 1]")},
        notes=f"{_op_note(op)}; channel: 8-bit rounding, JPEG-like quality {p.quality}, Gaussian noise σ = {p.noise}; "
              f"{p.images} secrets per seed, shares of shape {tuple(last['run']['bits'].shape[1:])}")


def measurement_step(cfg: FidelityConfig) -> dict[str, Any]:
    """The reconstruction's guidance step ζ, fixed by a rule before the test secrets are seen: the value in
    ``cfg.guidances`` with the best mean PSNR on ``cfg.calibration_images`` training digits from their clean shares
    (draws of the GP prior with their own seeds at smoke)."""
    p = cfg.pipeline
    prior = load_prior(p)
    if p.prior == "gp":
        g = GaussianProcessPrior(p.size, length_scale=p.gp_length_scale)
        pool = ((g.sample_x0(cfg.calibration_images, seed=30_000)[:, 0].numpy() + 1) / 2).clip(0, 1)
    else:
        train = digits_images(size=p.size, split="train")
        pool = train[np.random.default_rng(1).choice(len(train), cfg.calibration_images, replace=False)]
    bits = np.stack([encode_shares(s, factor=p.factor).bits for s in pool])
    scores = {}
    for z in sorted(cfg.guidances):
        rec = reconstruct(bits, prior, steps=cfg.steps, seed=70_000, guidance=z, surrogate=cfg.surrogate,
                          sigma=cfg.sigma, samples=cfg.samples)
        scores[z] = float(np.mean([psnr(r, s) for r, s in zip(rec, pool)]))
    return {"guidance": max(scores, key=lambda z: (scores[z], -z)), "calibration_psnr": scores}


def _psnrs(zeta: dict[str, Any]) -> str:
    return ", ".join(f"ζ {z:g}: {v:.2f} dB" for z, v in zeta["calibration_psnr"].items())


def check_posterior_fidelity(cfg: FidelityConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P22]: posterior sampling through a differentiable surrogate restores continuous tone from shares."""
    p = cfg.pipeline
    rows, shown = [], {}
    op = ctx.shared(operating_point, p)
    zeta = ctx.shared(measurement_step, cfg)
    for seed in ctx.seeds:
        run = ctx.shared(stego_run, p, seed, op["guidance"])
        prior = ctx.shared(load_prior, p)
        rec = reconstruct(run["extracted"], prior, steps=cfg.steps, seed=seed + 1, guidance=zeta["guidance"],
                          surrogate=cfg.surrogate, sigma=cfg.sigma, samples=cfg.samples)
        base = {f"{m} {s:g}": np.stack([descreen(b, factor=p.factor, method=m, size=s) for b in run["extracted"]])
                for m, sizes in (("blur", cfg.blur_sigmas), ("median", cfg.median_sizes)) for s in sizes}
        for i, sec in enumerate(run["secrets"]):
            rows.append({"seed": seed, "image": i, "psnr_dps": psnr(rec[i], sec), "ssim_dps": ssim(rec[i], sec),
                         "baselines": {k: {"psnr": psnr(v[i], sec), "ssim": ssim(v[i], sec)} for k, v in base.items()}})
        shown = {"secrets": run["secrets"], "bits": run["extracted"], "dps": rec, **base}
    j = judge_fidelity(rows, bars=ctx.bars)
    best = j.measured.get("strongest_baseline", "")
    mp, ms = j.measured.get("mean_psnr", {}), j.measured.get("mean_ssim", {})
    summary = (f"PSNR DPS {mp.get('dps', float('nan')):.2f} dB vs {best} {mp.get(best, float('nan')):.2f} dB; "
               f"SSIM {ms.get('dps', float('nan')):.3f} vs {ms.get(best, float('nan')):.3f}")
    return ClaimResult.judged(
        j, summary=summary, rows=rows, figures=[fidelity_figure(shown, best)], measured={"measurement_step": zeta},
        findings={"measurement step ζ on training digits (ours)": _psnrs(zeta)},
        notes=f"bits extracted after the channel ({_op_note(op)}); surrogate {cfg.surrogate} (σ = {cfg.sigma}), "
              f"{cfg.steps} steps, ζ = {zeta['guidance']:g} (the best on training digits: {_psnrs(zeta)}), mean of "
              f"{cfg.samples} posterior draws; the baseline is the best of its grid on these secrets")


def _op_note(op: dict[str, Any]) -> str:
    cal = ", ".join(f"ζ {g:g}: {a:.3f}" for g, a in op["calibration_accuracy"].items())
    how = "the weakest reaching the target" if op["reached"] else "no strength reached the target: the strongest"
    return f"operating point ζ = {op['guidance']:g} ({how}; calibration accuracy after the channel {cal})"


def _covers(cfg: StegConfig, seed: int) -> np.ndarray:
    p = cfg.pipeline
    prior = load_prior(p)
    xs = [guided_sample(prior, n=p.images, steps=p.embed_steps, seed=50_000 + 100 * seed + k) for k in range(cfg.batches)]
    return np.concatenate([((x[:, 0] + 1) / 2).numpy().astype(np.float64) for x in xs])


def _stegos(cfg: StegConfig, ctx: Context, seed: int, g: float) -> tuple[np.ndarray, float]:
    """``cfg.batches`` batches of stego images at strength ``g`` and their mean bit accuracy after the channel."""
    p = cfg.pipeline
    runs = [ctx.shared(stego_run, p, seed, g)] + [stego_run(p, 100_000 * (k + 1) + seed, g)
                                                  for k in range(1, cfg.batches)]
    acc = float(np.mean([(r["extracted"] == r["bits"]).mean() for r in runs]))
    return np.concatenate([r["stego"] for r in runs]), acc


def check_steganalysis_chance(cfg: StegConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P22]: stego images are indistinguishable from the synthesis process itself. Swept over the
    embedding strengths (the capacity / security trade-off); judged at the operating point of :func:`operating_point`."""
    p = cfg.pipeline
    op = ctx.shared(operating_point, p)
    rows, shown = [], {}
    for seed in ctx.seeds:
        c = _covers(cfg, seed)
        for g in sorted(p.strengths):
            s, acc = _stegos(cfg, ctx, seed, g)
            at = bool(g == op["guidance"])
            for d, auc in (("logistic", logistic_auc(c, s, seed=seed)),
                           ("cnn", cnn_auc(c, s, epochs=cfg.cnn_epochs, seed=seed))):
                rows.append({"seed": seed, "detector": d, "auc": auc, "strength": g, "operating": at,
                             "acc_distorted": acc})
            if at:
                shown = {"covers": c, "stegos": s}
    j = judge_steganalysis(rows, bars=ctx.bars)
    curve = {g: {k: float(np.mean([r[f] for r in rows if r["strength"] == g and (d is None or r["detector"] == d)]))
                 for k, f, d in (("acc_distorted", "acc_distorted", None), ("logistic", "auc", "logistic"),
                                 ("cnn", "auc", "cnn"))} for g in sorted(p.strengths)}
    at = curve[op["guidance"]]
    return ClaimResult.judged(
        j, summary=f"at ζ = {op['guidance']:g}: AUC logistic {at['logistic']:.3f}, CNN {at['cnn']:.3f} (chance 0.5), "
                   f"bit accuracy after channel {at['acc_distorted']:.3f}",
        rows=rows, measured={"operating_point": op, "tradeoff": curve},
        figures=[tradeoff_figure(curve, op), cover_stego_figure(shown, op["guidance"])],
        findings={"capacity / security trade-off (ours)": "; ".join(
            f"ζ {g:g}: accuracy {v['acc_distorted']:.3f}, AUC {v['logistic']:.3f} / {v['cnn']:.3f}"
            for g, v in curve.items())},
        notes=f"{_op_note(op)}; per seed and strength {cfg.batches * p.images} stego vs as many unguided samples of "
              "the same prior and sampler; logistic AUC 5-fold cross-validated, CNN trained on one half and scored "
              "on the other (disjoint images)")
