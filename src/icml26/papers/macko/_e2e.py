"""End-to-end run for the claim ``e2e_wanda_decoder`` of [P05]: Wanda-prune a decoder, swap in MACKO, time decoding."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

__all__ = ["run_e2e"]


def run_e2e(cfg: Any, seeds: tuple[int, ...], torch: Any) -> dict[str, Any]:
    """Build a :class:`TinyDecoder`, prune its block linears with Wanda (calibration on random tokens), and time
    greedy decoding (batch 1, one thread) with dense fp32 (torch), dense fp16 (our GEMV) and MACKO layers."""
    import copy

    from icml26.common.threads import single_thread
    from icml26.papers.macko._decoder import DecoderConfig, TinyDecoder, greedy_decode
    from icml26.papers.macko._torch import DenseFp16Linear, MackoLinear
    from icml26.papers.macko._wanda import wanda_prune

    seed = seeds[0]
    dcfg = DecoderConfig(vocab=cfg.vocab, d_model=cfg.d_model, n_layers=cfg.n_layers, n_heads=cfg.n_heads)
    g = torch.Generator().manual_seed(seed + 1)
    with single_thread():
        dense = TinyDecoder(dcfg, seed=seed).eval()
        calib = torch.randint(0, cfg.vocab, (1, cfg.calib_tokens), generator=g)
        prompt = torch.randint(0, cfg.vocab, (1, cfg.prompt), generator=g)
        # Wanda: the inputs of every block linear on the calibration tokens
        inputs: dict[str, torch.Tensor] = {}
        hooks = []
        for name, mod in dense.named_modules():
            if isinstance(mod, torch.nn.Linear):
                hooks.append(mod.register_forward_hook(
                    lambda m, a, o, name=name: inputs.__setitem__(name, a[0].detach().reshape(-1, a[0].shape[-1]))))
        with torch.no_grad():
            dense(calib, [{} for _ in dense.blocks])
        for h in hooks:
            h.remove()
        pruned16 = copy.deepcopy(dense)
        macko = copy.deepcopy(dense)
        dense16 = copy.deepcopy(dense)
        dense16_bytes = macko_bytes = 0
        for name, mod in dense.named_modules():
            if not isinstance(mod, torch.nn.Linear):
                continue
            w = wanda_prune(mod.weight.detach(), inputs[name], sparsity=cfg.sparsity)
            parent, attr = name.rsplit(".", 1)
            ml, dl, pl = MackoLinear(w), DenseFp16Linear(mod.weight.detach()), DenseFp16Linear(w)
            setattr(macko.get_submodule(parent), attr, ml)
            setattr(dense16.get_submodule(parent), attr, dl)
            setattr(pruned16.get_submodule(parent), attr, pl)
            dense16_bytes += dl.weight_nbytes
            macko_bytes += ml.weight_nbytes
        models = {"dense32": dense, "dense16": dense16, "macko": macko}
        tokens = {"macko": greedy_decode(macko, prompt, cfg.new_tokens),
                  "pruned16": greedy_decode(pruned16, prompt, cfg.new_tokens)}
        agreement = float(np.mean(np.array(tokens["macko"]) == np.array(tokens["pruned16"])))
        times: dict[str, list[float]] = {k: [] for k in models}
        names = list(models)
        for i in range(cfg.reps):
            for k in names[i % 3:] + names[: i % 3]:
                t = time.perf_counter()
                greedy_decode(models[k], prompt, cfg.new_tokens)
                times[k].append(time.perf_counter() - t)
    tps = {k: cfg.new_tokens / float(np.median(v)) for k, v in times.items()}
    return {"dense16_bytes": dense16_bytes, "macko_bytes": macko_bytes, "agreement": agreement, "times": times,
            "tps": tps}
