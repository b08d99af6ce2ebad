"""End-to-end run for the claim ``e2e_wanda_decoder`` of [P05]: Wanda-prune a decoder, swap in MACKO, time decoding.

CPU (``device="cpu"``): batch-1 greedy decoding on one thread with dense fp32 (torch), dense fp16 (our GEMV) and
MACKO layers (our C++ SpMV). GPU (``device="cuda"``): the same model in fp16 with ``nn.Linear`` (cuBLAS) against
MACKO layers (the Triton SpMV), eager mode, one CUDA stream; ``interpret=True`` runs that GPU path on the CPU through
Triton's interpreter, which is how the tests exercise it without a GPU.
"""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import numpy as np

__all__ = ["run_e2e"]


def _calibrate(torch: Any, dense: Any, calib: Any) -> dict[str, Any]:
    """The inputs of every block linear on the calibration tokens (Wanda's ``X``)."""
    inputs: dict[str, Any] = {}
    hooks = []
    for name, mod in dense.named_modules():
        if isinstance(mod, torch.nn.Linear):
            hooks.append(mod.register_forward_hook(
                lambda m, a, o, name=name: inputs.__setitem__(name, a[0].detach().reshape(-1, a[0].shape[-1]))))
    with torch.no_grad():
        dense(calib, [{} for _ in dense.blocks])
    for h in hooks:
        h.remove()
    return inputs


def _swap(model: Any, layers: dict[str, Any]) -> Any:
    for name, layer in layers.items():
        parent, attr = name.rsplit(".", 1)
        setattr(model.get_submodule(parent), attr, layer)
    return model


def _timed_decode(torch: Any, models: dict[str, Any], prompt: Any, cfg: Any, sync: bool) -> dict[str, Any]:
    """Paired rounds of greedy decoding (:func:`~icml26.papers.macko._timing.paired_rounds`: one decode per model
    per round, order rotated); on a GPU each decode ends with a synchronize, so its time is the device's."""
    from icml26.papers.macko._decoder import greedy_decode
    from icml26.papers.macko._timing import paired_rounds

    def decode(model: Any) -> None:
        greedy_decode(model, prompt, cfg.new_tokens)
        if sync:
            torch.cuda.synchronize()

    return paired_rounds({k: [lambda m=m: decode(m)] for k, m in models.items()}, cfg.reps)


def run_e2e(cfg: Any, seeds: tuple[int, ...], torch: Any, *, interpret: bool = False) -> dict[str, Any]:
    """Build a :class:`TinyDecoder`, prune its block linears with Wanda (calibration on random tokens), and time
    greedy decoding (batch 1) of the dense and the MACKO model (``cfg.device``: ``"cpu"`` or ``"cuda"``).

    Returns the linear-layer weight bytes (dense fp16, MACKO), the greedy-token agreement of the MACKO model with
    the pruned dense model, the per-round times and the tokens/s of each model.
    """
    from icml26.common.threads import single_thread
    from icml26.papers.macko._decoder import DecoderConfig, TinyDecoder, greedy_decode
    from icml26.papers.macko._torch import (
        DenseFp16Linear,
        MackoLinear,
        TritonMackoLinear,
    )
    from icml26.papers.macko._wanda import wanda_prune

    device = getattr(cfg, "device", "cpu")
    if device not in ("cpu", "cuda"):
        raise ValueError(f"cfg.device must be 'cpu' or 'cuda', got {device!r}")
    accel = device == "cuda" or interpret
    seed = seeds[0]
    dcfg = DecoderConfig(vocab=cfg.vocab, d_model=cfg.d_model, n_layers=cfg.n_layers, n_heads=cfg.n_heads)
    g = torch.Generator().manual_seed(seed + 1)
    # CPU timings run on one thread; on a GPU the host's threads only speed up pruning and encoding
    with single_thread() if device == "cpu" else contextlib.nullcontext():
        dense = TinyDecoder(dcfg, seed=seed).eval()
        calib = torch.randint(0, cfg.vocab, (1, cfg.calib_tokens), generator=g)
        prompt = torch.randint(0, cfg.vocab, (1, cfg.prompt), generator=g)
        inputs = _calibrate(torch, dense, calib)
        pruned = {name: wanda_prune(mod.weight.detach(), inputs[name], sparsity=cfg.sparsity)
                  for name, mod in dense.named_modules() if isinstance(mod, torch.nn.Linear)}
        dense16_bytes = sum(2 * w.numel() for w in pruned.values())
        if accel:
            dev = torch.device("cpu" if interpret else "cuda")
            dense16 = copy.deepcopy(dense).to(device=dev, dtype=torch.float16)
            pruned16 = copy.deepcopy(dense).to(device=dev, dtype=torch.float16)
            with torch.no_grad():
                for name, w in pruned.items():
                    pruned16.get_submodule(name).weight.copy_(w)
            layers = {name: TritonMackoLinear(w, interpret=interpret) for name, w in pruned.items()}
            macko = _swap(copy.deepcopy(dense).to(device=dev, dtype=torch.float16), layers)
            models = {"dense16": dense16, "macko": macko}
            prompt = prompt.to(dev)
        else:
            layers = {name: MackoLinear(w) for name, w in pruned.items()}
            macko = _swap(copy.deepcopy(dense), layers)
            dense16 = _swap(copy.deepcopy(dense), {n: DenseFp16Linear(dense.get_submodule(n).weight.detach())
                                                    for n in pruned})
            pruned16 = _swap(copy.deepcopy(dense), {n: DenseFp16Linear(w) for n, w in pruned.items()})
            models = {"dense32": dense, "dense16": dense16, "macko": macko}
        macko_bytes = sum(layer.weight_nbytes for layer in layers.values())
        tokens = {"macko": greedy_decode(macko, prompt, cfg.new_tokens),
                  "pruned16": greedy_decode(pruned16, prompt, cfg.new_tokens)}
        agreement = float(np.mean(np.array(tokens["macko"]) == np.array(tokens["pruned16"])))
        times = _timed_decode(torch, models, prompt, cfg, sync=device == "cuda" and not interpret)
    tps = {k: cfg.new_tokens / float(np.median(v)) for k, v in times.items()}
    return {"dense16_bytes": dense16_bytes, "macko_bytes": macko_bytes, "agreement": agreement, "times": times,
            "tps": tps, "device": "triton-interpret" if interpret else device}
