"""Training the [P23] models on a :class:`~icml26.papers.anira.TokenTask`, and the cached runs of the claims.

:func:`train_recurrent` is the user-facing loop (``icml26.common.train``: AdamW, seeded minibatches, a cosine
schedule), trimming each batch's padding and drawing ANIRA-E's Gumbel noise from its own generator. The difficulty
labels are never given to the model. :func:`trained_model` trains the model of a :class:`RunSpec` once per seed and
keeps its weights under ``<cache>/anira/`` (``$ICML26_CACHE_DIR``), keyed by every field of the spec, the seed and
the torch version; without a cache folder it trains in memory.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor

from icml26.common.cache import cache_root, materialise
from icml26.common.train import TrainResult, train
from icml26.common.validation import choice, positive_int, real
from icml26.common.validation import seed as check_seed
from icml26.papers.anira._model import RecurrentConfig, RecurrentTransformer
from icml26.papers.anira._tasks import TokenTask, addition, pointer_chasing
from icml26.papers.anira._topo import topological_levels

__all__ = ["METHODS", "RunSpec", "TaskSpec", "cache_key", "evaluate_tokens", "make_task", "model_config", "train_recurrent",
           "trained_model"]

#: method name -> the RecurrentConfig fields it sets (ANIRA-E, ANIRA-O with ACT or PonderNet, the baselines)
METHODS: dict[str, dict[str, Any]] = {
    "anira_e": {"mode": "early"},
    "anira_o_act": {"mode": "online", "halting": "act"},
    "anira_o_ponder": {"mode": "online", "halting": "ponder"},
    "fixed": {"mode": "fixed"},
    "mod": {"mode": "mod"},
}
_GENERATORS = {"pointer": pointer_chasing, "addition": addition, "topo": topological_levels}


@dataclass(frozen=True)
class TaskSpec:
    """A task, its in-distribution and longer (out-of-distribution) generator arguments ([P23] T1-T3, our sizes),
    and how out-of-distribution accuracy is read: on the tokens of difficulty >= ``ood_min_difficulty`` (the
    queries beyond the training range), per token or, with ``exact_match``, per whole sequence."""

    name: str = "pointer"
    id_args: tuple[tuple[str, Any], ...] = (("n_vars", (6, 10)), ("max_hops", 3))
    ood_args: tuple[tuple[str, Any], ...] = (("n_vars", (12, 18)), ("max_hops", 7))
    ood_min_difficulty: int = 4
    exact_match: bool = False


@dataclass(frozen=True)
class RunSpec:
    """One trained model: the task, the method and every hyper-parameter (all part of the cache key); ``capacity``
    is Mixture-of-Depths' share of tokens per iteration, ``depth`` the fixed mode's depth (0: ``max_depth``)."""

    task: TaskSpec = TaskSpec()
    method: str = "anira_e"
    d_model: int = 48
    n_head: int = 4
    d_ff: int = 96
    max_depth: int = 8
    cost_weight: float = 0.01
    capacity: float = 0.5
    depth: int = 0
    n_train: int = 8000
    steps: int = 500
    batch_size: int = 32
    lr: float = 3e-3


def make_task(spec: TaskSpec, split: str, n_seqs: int, *, seed: int) -> TokenTask:
    """``n_seqs`` sequences of ``spec``'s in-distribution (``split="id"``) or longer (``"ood"``) instances ([P23])."""
    gen = _GENERATORS[choice(spec.name, "spec.name", tuple(_GENERATORS))]
    args = dict(spec.id_args if choice(split, "split", ("id", "ood")) == "id" else spec.ood_args)
    return gen(n_seqs, seed=seed, **args)


def model_config(spec: RunSpec, task: TokenTask) -> RecurrentConfig:
    """The :class:`RecurrentConfig` of ``spec`` for ``task``'s fields and classes ([P23] models, our sizes)."""
    extra = METHODS[choice(spec.method, "spec.method", tuple(METHODS))]
    positions = "rope" if task.name == "addition" else "none"
    groups = (0,) + (1,) * (len(task.vocab_sizes) - 1) if task.name == "topo" else ()
    return RecurrentConfig(vocab_sizes=task.vocab_sizes, n_classes=task.n_classes, d_model=spec.d_model,
                           n_head=spec.n_head, d_ff=spec.d_ff, max_depth=spec.max_depth,
                           cost_weight=spec.cost_weight, capacity=spec.capacity, depth=spec.depth, positions=positions,
                           field_groups=groups, **extra)


def _tensors(task: TokenTask) -> list[Tensor]:
    return [torch.from_numpy(task.x), torch.from_numpy(task.y), torch.from_numpy(task.mask)]


class _Loss:
    """``loss_fn`` of :func:`icml26.common.train.train`: a batch with its padding trimmed, Gumbel noise seeded."""

    def __init__(self, seed: int) -> None:
        self.gen = torch.Generator().manual_seed(seed)

    def __call__(self, model: RecurrentTransformer, x: Tensor, y: Tensor, mask: Tensor) -> Tensor:
        n = int(mask.sum(1).max())
        x, y, mask = x[:, :n], y[:, :n], mask[:, :n]
        return model.loss(model(x, mask, generator=self.gen), y)


def train_recurrent(model: RecurrentTransformer, task: TokenTask, *, steps: int, lr: float, batch_size: int,
                    seed: int) -> TrainResult:
    """Train ``model`` on ``task`` ([P23]: task loss plus the policy's compute term; no difficulty labels) for
    ``steps`` AdamW steps with a cosine schedule; returns :class:`icml26.common.train.TrainResult`."""
    if not isinstance(model, RecurrentTransformer):
        raise TypeError(f"model must be a RecurrentTransformer, got {type(model).__name__}")
    if not isinstance(task, TokenTask):
        raise TypeError(f"task must be a TokenTask, got {type(task).__name__}")
    if tuple(task.vocab_sizes) != model.cfg.vocab_sizes or task.n_classes != model.cfg.n_classes:
        raise ValueError("task: its vocab_sizes / n_classes differ from the model's config")
    s = check_seed(seed)
    data = _tensors(task)
    loss = _Loss(s)
    probe = [t[:256] for t in data]

    def probe_loss(m: torch.nn.Module) -> float:  # the final evaluation: a few hundred training rows, no gradient
        with torch.no_grad():
            return float(loss(m, *probe))  # type: ignore[arg-type]

    return train(model, data, loss, steps=positive_int(steps, "steps"), lr=real(lr, "lr", lo=0.0, lo_open=True),
                 batch_size=positive_int(batch_size, "batch_size"), seed=s, eval_every=10**9, eval_fn=probe_loss,
                 lr_schedule="cosine")


def _train(spec: RunSpec, seed: int) -> RecurrentTransformer:
    task = make_task(spec.task, "id", spec.n_train, seed=seed)
    model = RecurrentTransformer(model_config(spec, task), seed=seed)
    train_recurrent(model, task, steps=spec.steps, lr=spec.lr, batch_size=spec.batch_size, seed=seed)
    return model.eval()


def cache_key(spec: RunSpec, seed: int) -> tuple[dict[str, Any], str]:
    """The cache key of a trained model (every field of ``spec``, the seed, the torch version) and its folder name."""
    key = {"spec": json.loads(json.dumps(dataclasses.asdict(spec))), "seed": seed, "torch": torch.__version__,
           "format": 1}
    tag = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return key, f"{spec.task.name}-{spec.method}-s{seed}-{tag}"


def trained_model(spec: RunSpec, seed: int, *, cache_dir: str | Path | None = None) -> RecurrentTransformer:
    """The model of ``spec`` trained with ``seed`` ([P23] experiments): read from the cache folder when it holds it,
    else trained (and stored there when a cache folder is set)."""
    s = check_seed(seed)
    root = cache_root(cache_dir)
    if root is None:
        return _train(spec, s)
    key, name = cache_key(spec, s)

    def build(folder: Path) -> None:
        torch.save(_train(spec, s).state_dict(), folder / "model.pt")

    folder = materialise(root / "anira" / name, key=key, build=build)
    task = make_task(spec.task, "id", 1, seed=s)
    model = RecurrentTransformer(model_config(spec, task), seed=s)
    model.load_state_dict(torch.load(folder / "model.pt", weights_only=True))
    return model.eval()


def evaluate_tokens(model: RecurrentTransformer, task: TokenTask, *, batch_size: int = 256) -> dict[str, np.ndarray]:
    """Per-token results of ``model`` on ``task`` ([P23] metrics): ``depth``, ``correct``, ``difficulty``, the
    sequence index ``seq`` of each real token, ``flops`` (:func:`~icml26.papers.anira.token_flops`) and the features."""
    from icml26.papers.anira._infer import token_flops

    if not isinstance(model, RecurrentTransformer):
        raise TypeError(f"model must be a RecurrentTransformer, got {type(model).__name__}")
    if not isinstance(task, TokenTask):
        raise TypeError(f"task must be a TokenTask, got {type(task).__name__}")
    batch_size = positive_int(batch_size, "batch_size")
    model.eval()
    depth, correct, flops = [], [], []
    with torch.no_grad():
        for i in range(0, len(task.y), batch_size):
            sl = slice(i, i + batch_size)
            m = task.mask[sl]
            n = int(m.sum(1).max())
            out = model(torch.from_numpy(task.x[sl, :n]), torch.from_numpy(m[:, :n]))
            mk = m[:, :n]
            depth.append(out.depth.numpy()[mk])
            correct.append((out.logits.argmax(-1).numpy() == task.y[sl, :n])[mk])
            flops.append(token_flops(model.cfg, out.run.numpy(), mk)[mk])
    seq = np.nonzero(task.mask)[0]
    res = {"depth": np.concatenate(depth), "correct": np.concatenate(correct), "flops": np.concatenate(flops),
           "difficulty": task.difficulty[task.mask], "seq": seq}
    res.update({k: v[task.mask] for k, v in task.features.items()})
    return res
