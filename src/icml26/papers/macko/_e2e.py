"""The end-to-end decoder of the claims ``e2e_memory`` and ``e2e_speed`` of [P05]: Wanda-prune a decoder, swap in
MACKO layers, compare greedy decoding with the pruned dense model, time it.

CPU (``device="cpu"``): batch-1 greedy decoding with dense fp32 (torch), dense fp16 (our GEMV) and MACKO layers (our
C++ SpMV). GPU (``device="cuda"``): the same model in fp16 with ``nn.Linear`` (cuBLAS) against MACKO layers (the
Triton SpMV), eager mode, one CUDA stream; ``interpret=True`` runs that GPU path on the CPU through Triton's
interpreter, which is how the tests exercise it without a GPU. Torch is imported lazily (the ``[torch]`` extra).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

__all__ = ["build_e2e", "decode_agreement", "time_decode"]


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


def _gpu_models(torch: Any, dense: Any, pruned: dict[str, Any], interpret: bool) -> tuple[dict[str, Any], Any, Any]:
    from icml26.papers.macko._torch import TritonMackoLinear

    dev = torch.device("cpu" if interpret else "cuda")
    dense16 = copy.deepcopy(dense).to(device=dev, dtype=torch.float16)
    pruned16 = copy.deepcopy(dense).to(device=dev, dtype=torch.float16)
    with torch.no_grad():
        for name, w in pruned.items():
            pruned16.get_submodule(name).weight.copy_(w)
    layers = {name: TritonMackoLinear(w, interpret=interpret) for name, w in pruned.items()}
    macko = _swap(copy.deepcopy(dense).to(device=dev, dtype=torch.float16), layers)
    return {"dense16": dense16, "macko": macko}, pruned16, layers


def _cpu_models(dense: Any, pruned: dict[str, Any]) -> tuple[dict[str, Any], Any, Any]:
    from icml26.papers.macko._torch import DenseFp16Linear, MackoLinear

    layers = {name: MackoLinear(w) for name, w in pruned.items()}
    macko = _swap(copy.deepcopy(dense), layers)
    dense16 = _swap(copy.deepcopy(dense), {n: DenseFp16Linear(dense.get_submodule(n).weight.detach()) for n in pruned})
    pruned16 = _swap(copy.deepcopy(dense), {n: DenseFp16Linear(w) for n, w in pruned.items()})
    return {"dense32": dense, "dense16": dense16, "macko": macko}, pruned16, layers


def build_e2e(model: Any, seed: int, *, interpret: bool = False) -> dict[str, Any]:
    """Build the decoder of ``model`` (a frozen config: width, depth, sparsity, calibration and prompt lengths,
    ``device``), prune its block linears with Wanda (calibration on random tokens) and swap in MACKO layers.

    Returns the models to time (``dense32`` on CPU only, ``dense16``, ``macko``), the pruned dense fp16 model (the
    reference for the greedy tokens), the prompt, and the linear-layer weight bytes of dense fp16 and of MACKO.
    """
    import torch

    from icml26.papers.macko._decoder import DecoderConfig, TinyDecoder
    from icml26.papers.macko._wanda import wanda_prune

    if model.device not in ("cpu", "cuda"):
        raise ValueError(f"model.device must be 'cpu' or 'cuda', got {model.device!r}")
    dcfg = DecoderConfig(vocab=model.vocab, d_model=model.d_model, n_layers=model.n_layers, n_heads=model.n_heads)
    g = torch.Generator().manual_seed(seed + 1)
    dense = TinyDecoder(dcfg, seed=seed).eval()
    calib = torch.randint(0, model.vocab, (1, model.calib_tokens), generator=g)
    prompt = torch.randint(0, model.vocab, (1, model.prompt), generator=g)
    inputs = _calibrate(torch, dense, calib)
    pruned = {name: wanda_prune(mod.weight.detach(), inputs[name], sparsity=model.sparsity)
              for name, mod in dense.named_modules() if isinstance(mod, torch.nn.Linear)}
    accel = model.device == "cuda" or interpret
    if accel:
        models, pruned16, layers = _gpu_models(torch, dense, pruned, interpret)
        prompt = prompt.to(torch.device("cpu" if interpret else "cuda"))
    else:
        models, pruned16, layers = _cpu_models(dense, pruned)
    return {"models": models, "pruned16": pruned16, "prompt": prompt,
            "dense16_bytes": sum(2 * w.numel() for w in pruned.values()),
            "macko_bytes": sum(layer.weight_nbytes for layer in layers.values()),
            "sync": model.device == "cuda" and not interpret,
            "device": "triton-interpret" if interpret else model.device}


def decode_agreement(built: dict[str, Any], new_tokens: int) -> float:
    """Share of the ``new_tokens`` greedy tokens on which the MACKO model agrees with the pruned dense fp16 model."""
    from icml26.papers.macko._decoder import greedy_decode

    a = greedy_decode(built["models"]["macko"], built["prompt"], new_tokens)
    b = greedy_decode(built["pruned16"], built["prompt"], new_tokens)
    return float(np.mean(np.array(a) == np.array(b)))


def _decode(torch: Any, model: Any, prompt: Any, new_tokens: int, sync: bool) -> None:
    from icml26.papers.macko._decoder import greedy_decode

    greedy_decode(model, prompt, new_tokens)
    if sync:
        torch.cuda.synchronize()


def time_decode(built: dict[str, Any], *, new_tokens: int, reps: int) -> dict[str, np.ndarray]:
    """Per-round seconds of one greedy decode of ``new_tokens`` tokens by every model, in paired rounds
    (:func:`~icml26.papers.macko._timing.paired_rounds`: one decode per model per round, order rotated); on a GPU
    each decode ends with a synchronize, so its time is the device's."""
    import functools

    import torch

    from icml26.papers.macko._timing import paired_rounds

    calls = {k: [functools.partial(_decode, torch, m, built["prompt"], new_tokens, built["sync"])]
             for k, m in built["models"].items()}
    return paired_rounds(calls, reps)
