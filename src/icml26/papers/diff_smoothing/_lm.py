"""GRPO with reward transforms on a tiny causal LM (the shared TinyGPT) for CountDown-3 (torch).

:func:`sft` trains the base policy π_base on skewed correct demonstrations; :func:`grpo_train` runs GRPO from a copy
of it with an :class:`AdvantageTransform` (Eq. 6 of [P32] for DS), and :func:`evaluate` measures unbiased pass@k and
the number of distinct correct answers from n samples per held-out prompt.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np
import torch
from torch.nn import functional as F

from icml26.common import validation
from icml26.common.nn import GPTConfig, TinyGPT
from icml26.common.rl import ppo_clip_loss
from icml26.common.train import train
from icml26.papers.diff_smoothing._countdown import (
    COMPLETION_LEN,
    PROMPT_LEN,
    VOCAB,
    CountdownInstance,
    decode,
    encode_prompt,
    sft_targets,
    verify,
)
from icml26.papers.diff_smoothing._passk import pass_at_k
from icml26.papers.diff_smoothing._transforms import AdvantageTransform

__all__ = ["GRPOHistory", "LMConfig", "evaluate", "grpo_train", "make_model", "sample", "sequence_logp", "sft"]


@dataclass(frozen=True, kw_only=True)
class LMConfig:
    """The tiny model of [P32]'s CountDown check: a TinyGPT over the 14-token CountDown vocabulary."""

    n_layer: int = 2
    n_head: int = 2
    d_model: int = 48

    def gpt(self) -> GPTConfig:
        return GPTConfig(vocab_size=len(VOCAB), block_size=PROMPT_LEN + COMPLETION_LEN, n_layer=self.n_layer,
                         n_head=self.n_head, d_model=self.d_model)


def make_model(cfg: LMConfig, *, seed: int) -> TinyGPT:
    """A freshly initialised TinyGPT (weights from ``seed``), the policy of [P32]'s CountDown experiments."""
    if not isinstance(cfg, LMConfig):
        raise TypeError(f"cfg must be an LMConfig, got {type(cfg).__name__}")
    return TinyGPT(cfg.gpt(), seed=validation.seed(seed))


def _check_model(model: object, name: str = "model") -> None:
    if not isinstance(model, TinyGPT):
        raise TypeError(f"{name} must be a TinyGPT (make_model), got {type(model).__name__}")


def _check_instances(instances: object) -> None:
    if not isinstance(instances, (list, tuple)) or not instances:
        raise ValueError("instances must be a non-empty list of CountdownInstance")
    if not all(isinstance(i, CountdownInstance) for i in instances):
        raise TypeError("instances must hold CountdownInstance objects (make_instances)")


def _completion_loss(model: TinyGPT, seqs: torch.Tensor) -> torch.Tensor:
    logits = model(seqs[:, :-1])[:, PROMPT_LEN - 1 :]
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), seqs[:, PROMPT_LEN:].reshape(-1))


def sft(model: TinyGPT, instances: list[CountdownInstance], *, steps: int, lr: float = 3e-3, batch_size: int = 64,
        zipf: float = 1.5, seed: int = 0) -> list[float]:
    """Supervised fine-tuning on skewed correct demonstrations (:func:`sft_targets`); returns the loss per step.

    Builds the SFT base policy π_base of [P32]'s CountDown experiments.
    """
    _check_model(model)
    _check_instances(instances)
    steps = validation.positive_int(steps, "steps")
    batch_size = validation.positive_int(batch_size, "batch_size")
    lr = validation.real(lr, "lr", lo=0.0, lo_open=True)
    seed = validation.seed(seed)
    seqs = torch.from_numpy(sft_targets(instances, zipf=zipf, seed=seed))
    res = train(model, [seqs], _completion_loss, steps=steps, lr=lr, batch_size=batch_size, seed=seed,
                eval_every=max(1, steps), lr_schedule="cosine")
    return res.losses


@torch.no_grad()
def sample(model: TinyGPT, prompts: torch.Tensor, *, n: int, generator: torch.Generator, temperature: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
    """Draw ``n`` completions per prompt. Returns the token ids (B·n, COMPLETION_LEN) and their sequence
    log-probabilities log π(y|x) = Σ_t log π(y_t | x, y_<t) (B·n,) at temperature 1 (the ℓ_i = log π_old(y_i|x)
    of [P32]'s Eq. (6) when drawn from π_old)."""
    _check_model(model)
    if not isinstance(prompts, torch.Tensor) or prompts.dtype != torch.long:
        raise TypeError(f"prompts must be a torch.long tensor of token ids, got {type(prompts).__name__}")
    if prompts.ndim != 2 or prompts.shape[1] != PROMPT_LEN or prompts.shape[0] == 0:
        raise ValueError(f"prompts must be (B, {PROMPT_LEN}) with B >= 1, got {tuple(prompts.shape)}")
    if bool(((prompts < 0) | (prompts >= len(VOCAB))).any()):
        raise ValueError(f"prompts must hold token ids in [0, {len(VOCAB)})")
    n = validation.positive_int(n, "n", hi=4096)
    temperature = validation.real(temperature, "temperature", lo=0.0, lo_open=True)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator (an explicit seed), got {type(generator).__name__}")
    x = prompts.repeat_interleave(n, dim=0)
    logp = torch.zeros(x.shape[0], dtype=torch.float32)
    for _ in range(COMPLETION_LEN):
        lg = model(x)[:, -1].float()
        lp = F.log_softmax(lg / temperature, dim=-1)
        nxt = torch.multinomial(lp.exp(), 1, generator=generator)
        logp += F.log_softmax(lg, dim=-1).gather(1, nxt).squeeze(1)
        x = torch.cat([x, nxt], dim=1)
    return x[:, PROMPT_LEN:], logp


def sequence_logp(model: TinyGPT, prompts: torch.Tensor, completions: torch.Tensor) -> torch.Tensor:
    """The sequence log-probability log π_θ(y|x) with gradients: the sum of the completion tokens'
    log-probabilities (B,), as in [P32]'s GRPO loss."""
    seqs = torch.cat([prompts, completions], dim=1)
    logits = model(seqs[:, :-1])[:, PROMPT_LEN - 1 :]
    return F.log_softmax(logits, dim=-1).gather(2, completions.unsqueeze(-1)).squeeze(-1).sum(dim=1)


def _rewards(instances: list[CountdownInstance], completions: torch.Tensor, n: int) -> np.ndarray:
    return np.array([[float(verify(inst, decode(completions[i * n + j]))) for j in range(n)]
                     for i, inst in enumerate(instances)])


@dataclass
class GRPOHistory:
    """Per step: mean reward of the sampled groups and the mean sequence log-probability (−entropy proxy)."""

    reward: list[float] = field(default_factory=list)
    logp: list[float] = field(default_factory=list)


def grpo_train(base: TinyGPT, instances: list[CountdownInstance], transform: AdvantageTransform, *, steps: int,
               prompts_per_step: int = 16, group_size: int = 8, lr: float = 1e-3, clip: float = 0.2,
               seed: int = 0) -> tuple[TinyGPT, GRPOHistory]:
    """GRPO from a copy of ``base`` with advantages ``transform(r̂, log π_old(y|x))`` (Eq. 6 of [P32] for DS).

    Each step draws ``prompts_per_step`` training prompts, ``group_size`` samples each from π_old (the current
    policy), rewards from the verifier, and takes one AdamW step on the clipped surrogate
    −mean_i min(ρ_i Ã_i, clip(ρ_i, 1 ± ``clip``) Ã_i), ρ_i = π_θ(y_i|x)/π_old(y_i|x) (ρ = 1 at the single update).
    """
    if not isinstance(transform, AdvantageTransform):
        raise TypeError(f"transform must be an AdvantageTransform, got {type(transform).__name__}")
    _check_model(base, "base")
    _check_instances(instances)
    steps = validation.int_at_least(steps, "steps", 0)
    prompts_per_step = validation.positive_int(prompts_per_step, "prompts_per_step")
    group_size = validation.int_at_least(group_size, "group_size", 2, hi=4096)
    lr = validation.real(lr, "lr", lo=0.0, lo_open=True)
    clip = validation.real(clip, "clip", lo=0.0, lo_open=True)
    seed = validation.seed(seed)
    model = copy.deepcopy(base)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    gen = torch.Generator().manual_seed(int(seed))
    rng = np.random.default_rng(seed)
    hist = GRPOHistory()
    for _ in range(steps):
        pick = rng.choice(len(instances), size=min(prompts_per_step, len(instances)), replace=False)
        batch = [instances[i] for i in pick]
        prompts = torch.tensor([encode_prompt(b) for b in batch], dtype=torch.long)
        comps, logp_old = sample(model, prompts, n=group_size, generator=gen)
        r = _rewards(batch, comps, group_size)
        adv = transform(r, np.minimum(logp_old.view(len(batch), group_size).numpy(), 0.0))
        a = torch.as_tensor(adv.reshape(-1), dtype=torch.float32)
        logp = sequence_logp(model, prompts.repeat_interleave(group_size, dim=0), comps)
        loss = ppo_clip_loss(logp, logp_old, a, clip=clip).loss  # sequence level: one "token" per completion
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        hist.reward.append(float(r.mean()))
        hist.logp.append(float(logp_old.mean()))
    model.eval()
    return model, hist


def evaluate(model: TinyGPT, instances: list[CountdownInstance], *, n: int = 32, ks: tuple[int, ...] = (1, 16),
             seed: int = 0) -> dict[str, np.ndarray]:
    """Per held-out prompt: unbiased pass@k from ``n`` samples for each k in ``ks`` and the number of distinct
    correct completions among the n samples (the held-out Pass@k and diversity metrics of [P32]'s CountDown claims)."""
    _check_model(model)
    _check_instances(instances)
    n = validation.positive_int(n, "n", hi=4096)
    ks = tuple(validation.positive_int(k, "ks", hi=n) for k in ks)
    gen = torch.Generator().manual_seed(validation.seed(seed))
    prompts = torch.tensor([encode_prompt(b) for b in instances], dtype=torch.long)
    comps, _ = sample(model, prompts, n=n, generator=gen)
    r = _rewards(instances, comps, n)
    c = r.sum(axis=1).astype(np.int64)
    out = {f"pass@{k}": np.asarray(pass_at_k(np.full_like(c, n), c, k)) for k in ks}
    out["distinct_correct"] = np.array([len({decode(comps[i * n + j]) for j in range(n) if r[i, j] > 0})
                                        for i in range(len(instances))], dtype=float)
    return out
