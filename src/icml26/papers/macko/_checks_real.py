"""What ``e2e_real_lm`` measures: a pretrained decoder (SmolLM2-135M at ``small``, a tiny random Llama at
``smoke``) Wanda-pruned to 50 % with calibration on real text, its block linears in the MACKO format: their bytes
against dense fp16, greedy decoding through the MACKO kernel against the pruned dense fp16 model, and the perplexity
of the pruned model against the dense one on held-out text. The verdict comes from ``_rules.judge_real_lm``."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.common.models import INSTALL_HINT, MissingExtraError, load_causal_lm, tiny_causal_lm
from icml26.common.text import stdlib_docstrings
from icml26.papers.macko._real import perplexity, to_macko, wanda_prune_model
from icml26.papers.macko._rules import judge_e2e_speed, judge_real_lm, median_ratio

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.macko.claims import RealLMConfig

__all__ = ["check_real_lm", "check_real_lm_speed", "real_lm_build"]


def _text(modules: tuple[str, ...]) -> str:
    """English prose shipped with the interpreter: the docstrings of standard-library modules and their members."""
    return " ".join(" ".join(p.split()) for p in stdlib_docstrings(modules) if p)


def _windows(tok: Any, text: str, *, n: int, length: int) -> Any:
    import torch

    ids = torch.as_tensor(tok(text)["input_ids"], dtype=torch.long)
    if ids.numel() < n * length:
        raise ValueError(f"the text gives {ids.numel()} tokens, fewer than {n} windows of {length}")
    return ids[: n * length].reshape(n, length)


def _load(name: str) -> tuple[Any, Any]:
    if name == "tiny":
        return tiny_causal_lm(seed=0, num_layers=2, hidden_size=64, intermediate_size=128)
    return load_causal_lm(name)


def _greedy(model: Any, prompt: Any, new_tokens: int, pad: int) -> list[int]:
    out = model.generate(prompt, max_new_tokens=new_tokens, do_sample=False, pad_token_id=pad)
    return out[0, prompt.shape[1]:].tolist()


def real_lm_build(cfg: RealLMConfig) -> dict[str, Any]:
    """One model load, pruned and converted, for the claims of the ``real_lm`` group: the MACKO and dense fp16
    models, their bytes, the perplexities, the greedy agreement and the prompts."""
    import torch

    dense, tok = _load(cfg.model)
    calib = _windows(tok, _text(cfg.calib_modules), n=cfg.calib_windows, length=cfg.length)
    held = _windows(tok, _text(cfg.eval_modules), n=cfg.eval_windows, length=cfg.length)
    ppl_dense = perplexity(dense, held)
    pruned = copy.deepcopy(dense)
    sparsity = wanda_prune_model(pruned, calib, sparsity=cfg.sparsity)
    ppl_pruned = perplexity(pruned, held)
    del dense
    macko, dense16 = copy.deepcopy(pruned), pruned
    macko_bytes, dense_bytes = sum(to_macko(macko).values()), sum(to_macko(dense16, kind="dense16").values())
    pad = int(tok.eos_token_id if tok.eos_token_id is not None else 0)
    prompts = [held[p : p + 1, : cfg.prompt] for p in range(cfg.prompts)]
    agree = []
    with torch.no_grad():
        for prompt in prompts:
            a, b = _greedy(macko, prompt, cfg.new_tokens, pad), _greedy(dense16, prompt, cfg.new_tokens, pad)
            agree.append(sum(x == y for x, y in zip(a, b)) / len(b))
    return {"dense16_bytes": dense_bytes, "macko_bytes": macko_bytes, "ppl_dense": ppl_dense, "ppl_pruned": ppl_pruned,
            "agreement": agree, "sparsity": sum(sparsity.values()) / len(sparsity), "layers": len(sparsity),
            "models": {"dense16": dense16, "macko": macko}, "prompts": prompts, "pad": pad}


def _numbers(built: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in built.items() if k not in ("models", "prompts", "pad")}


def check_real_lm(cfg: RealLMConfig, ctx: Context) -> ClaimResult:
    """``e2e_real_lm``: a Wanda-50 % pretrained decoder in the MACKO format (the Abstract's end-to-end setting)."""
    try:
        out = _numbers(ctx.shared(real_lm_build, cfg))
    except MissingExtraError as exc:
        return ClaimResult(Verdict.UNSUPPORTED, reason=f"{exc} ({INSTALL_HINT})", summary="not run")
    j = judge_real_lm(out, bars=ctx.bars)
    summary = (f"{cfg.model}: {out['layers']} block linears at sparsity {out['sparsity']:.3f}; weights "
               f"{out['dense16_bytes'] / 1e6:.1f} -> {out['macko_bytes'] / 1e6:.1f} MB "
               f"({out['dense16_bytes'] / out['macko_bytes']:.3f}x); perplexity {out['ppl_dense']:.2f} -> "
               f"{out['ppl_pruned']:.2f}; greedy agreement {min(out['agreement']):.2f}")
    return ClaimResult.judged(j, summary=summary, rows=[{k: v for k, v in out.items() if k != "agreement"}
                                                        | {"agreement_min": min(out["agreement"])}])


def _decode(model: Any, prompt: Any, new_tokens: int, pad: int) -> None:
    _greedy(model, prompt, new_tokens, pad)


def check_real_lm_speed(cfg: RealLMConfig, ctx: Context) -> ClaimResult:
    """``e2e_real_lm_speed``: greedy decoding (batch 1, KV cache) of the Wanda-50 % model through MACKO layers
    against dense fp16 layers, in paired rounds ([P05]'s end-to-end speed claim; a GPU claim, timed)."""
    import functools

    import torch

    from icml26.papers.macko._timing import paired_rounds

    try:
        built = ctx.shared(real_lm_build, cfg)
    except MissingExtraError as exc:
        return ClaimResult(Verdict.UNSUPPORTED, reason=f"{exc} ({INSTALL_HINT})", summary="not run")
    prompt, pad = built["prompts"][0], built["pad"]
    with torch.no_grad():
        times = paired_rounds({k: [functools.partial(_decode, m, prompt, cfg.new_tokens, pad)]
                               for k, m in built["models"].items()}, cfg.reps)
    j = judge_e2e_speed(times["dense16"], times["macko"], agreement=min(built["agreement"]),
                        weight_bytes=min(built["dense16_bytes"], built["macko_bytes"]), bars=ctx.bars,
                        baseline="our dense fp16 GEMV (CPU, 1 thread)")
    tps = {k: cfg.new_tokens / float(np.median(v)) for k, v in times.items()}
    sp = median_ratio(times["dense16"], times["macko"])
    return ClaimResult.judged(
        j, summary=(f"{cfg.model}: {tps['macko']:.1f} tokens/s with MACKO vs {tps['dense16']:.1f} with dense fp16 "
                    f"({sp.value:.2f}x); greedy tokens agree {min(built['agreement']):.2f}"),
        timings={"tokens_per_s": tps}, notes="batch-1 greedy decoding with transformers' KV cache; the 210 block "
        "linears go through our CPU kernels (MACKO SpMV or dense fp16 GEMV), embeddings, norms and attention through torch")
