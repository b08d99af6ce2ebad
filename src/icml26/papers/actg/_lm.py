"""The conditional generator of [P28] stage 2 at toy scale: a word-level TinyGPT, DP-SGD by opacus, and sampling.

The paper fine-tunes gemma-3-1b with DP-LoRA on "prompt(JSON row) -> text" pairs. Here the prompt is one token per
attribute value between ``<bos>`` and ``<sep>``; the direct DP-SFT baseline sees ``<bos> <sep>`` only. DP-SGD is
opacus' per-sample clipping and Gaussian noise over Poisson-sampled batches (rate q, noise multiplier σ, clip C),
the event accounted in ``_privacy.py``. Sampling is temperature 1.0 with nucleus top-p 0.95, as in the paper.
The word vocabulary is the schema's public word list (``vocabulary_words``), never read off the private texts: a
vocabulary built from the corpus would be a release outside the accounted (ε, δ). The private corpus size n sets
opacus' expected batch size q·n and is treated as public, as in DP-SGD practice.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional as F

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.common.validation import int_array, int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed
from icml26.papers.actg._corpus import ATTRIBUTES, vocabulary_words

__all__ = ["DPTrainLog", "Vocab", "dp_train_lm", "encode_pairs", "generate", "make_generator", "sequence_logprobs"]

PAD, BOS, SEP, EOS = "<pad>", "<bos>", "<sep>", "<eos>"


class Vocab:
    """Token ids of the [P28] toy generator: specials, one token per (attribute, value), then the corpus words."""

    def __init__(self) -> None:
        self.attr_tokens = [f"{a}={v}" for a, vals in ATTRIBUTES.items() for v in vals]
        self.itos = [PAD, BOS, SEP, EOS, *self.attr_tokens, *vocabulary_words()]
        self.stoi = {w: i for i, w in enumerate(self.itos)}
        offs = np.cumsum([0, *[len(v) for v in ATTRIBUTES.values()]])[:-1]
        self.attr_offsets = offs + 4
        self.first_word = 4 + len(self.attr_tokens)

    def __len__(self) -> int:
        return len(self.itos)

    def prompt(self, row: np.ndarray | None) -> list[int]:
        """``<bos> [attribute tokens] <sep>`` (no attribute tokens for ``row=None``: the unconditional prompt)."""
        mid = [] if row is None else [int(o + v) for o, v in zip(self.attr_offsets, row)]
        return [self.stoi[BOS], *mid, self.stoi[SEP]]

    def words(self, ids: list[int]) -> list[str]:
        """Decode generated ids up to ``<eos>`` (specials dropped)."""
        out = []
        for i in ids:
            if i == self.stoi[EOS]:
                break
            if i >= self.first_word:
                out.append(self.itos[i])
        return out


def make_generator(vocab: Vocab, *, block_size: int, n_layer: int, d_model: int, n_head: int, seed: int) -> TinyGPT:
    """A word-level TinyGPT for [P28] (RoPE, biases, untied head: the layout opacus computes per-sample gradients for)."""
    cfg = GPTConfig(vocab_size=len(vocab), block_size=positive_int(block_size, "block_size"),
                    n_layer=positive_int(n_layer, "n_layer"), n_head=positive_int(n_head, "n_head"),
                    d_model=positive_int(d_model, "d_model"), pos="rope", tie_weights=False, bias=True)
    return TinyGPT(cfg, seed=check_seed(seed))


def encode_pairs(vocab: Vocab, rows: np.ndarray | None, texts: list[list[str]], *, block_size: int
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(inputs, targets, loss mask) for "prompt(row) -> text" pairs ([P28] stage-2 data); ``rows=None``: the
    unconditional prompt. The loss covers the text and ``<eos>`` only; texts are cut to fit ``block_size``."""
    if not texts:
        raise ValueError("texts must not be empty")
    if rows is not None:
        rows = int_array(rows, "rows", ndim=2)
        if len(rows) != len(texts):
            raise ValueError(f"rows and texts differ in length: {len(rows)} != {len(texts)}")
    n, t = len(texts), positive_int(block_size, "block_size")
    x = torch.full((n, t), vocab.stoi[PAD], dtype=torch.long)
    y = torch.full((n, t), vocab.stoi[PAD], dtype=torch.long)
    m = torch.zeros((n, t))
    for i, words in enumerate(texts):
        p = vocab.prompt(None if rows is None else rows[i])
        seq = (p + [vocab.stoi[w] for w in words])[: t] + [vocab.stoi[EOS]]
        k = len(seq) - 1
        x[i, :k] = torch.tensor(seq[:-1])
        y[i, :k] = torch.tensor(seq[1:])
        m[i, len(p) - 1: k] = 1.0
    return x, y, m


def _masked_mean_nll(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    logits = model(x)
    nll = F.cross_entropy(logits.transpose(1, 2), y, reduction="none")
    return (nll * m).sum(1) / m.sum(1).clamp_min(1.0)


@dataclass(frozen=True)
class DPTrainLog:
    """What :func:`dp_train_lm` ([P28] stage 2) did: steps, batch sizes drawn, the mean loss of each step."""

    steps: int
    batch_sizes: tuple[int, ...]
    losses: tuple[float, ...]


def dp_train_lm(model: TinyGPT, data: tuple[torch.Tensor, torch.Tensor, torch.Tensor], *, q: float, sigma: float,
                steps: int, clip: float = 1.0, lr: float = 1e-3, seed: int) -> DPTrainLog:
    """DP-SGD fine-tuning of [P28] stage 2 with opacus: Poisson batches of rate ``q`` (drawn from ``seed``), per-sample
    gradients clipped to ``clip``, Gaussian noise of std ``sigma·clip`` on their sum, Adam over the noisy mean (the
    event of :func:`~icml26.papers.actg.pipeline_event`). ``sigma=0`` and ``q=1`` trains without privacy."""
    from opacus import GradSampleModule
    from opacus.optimizers import DPOptimizer

    q = real(q, "q", lo=0.0, hi=1.0, lo_open=True)
    sigma = real(sigma, "sigma", lo=0.0)
    steps, clip = int_at_least(steps, "steps", 0), real(clip, "clip", lo=0.0, lo_open=True)
    lr = real(lr, "lr", lo=0.0, lo_open=True)
    x, y, m = data
    n = x.shape[0]
    g = np.random.default_rng(check_seed(seed))
    gen = torch.Generator().manual_seed(int(g.integers(2**31)))
    gsm = GradSampleModule(model, loss_reduction="mean")
    opt = DPOptimizer(torch.optim.Adam(gsm.parameters(), lr=lr), noise_multiplier=sigma, max_grad_norm=clip,
                      expected_batch_size=max(1, round(q * n)), loss_reduction="mean", generator=gen)
    sizes, losses = [], []
    gsm.train()
    for _ in range(steps):
        idx = torch.from_numpy(np.flatnonzero(g.random(n) < q))
        sizes.append(int(idx.numel()))
        opt.zero_grad(set_to_none=True)
        if idx.numel() == 0:  # an empty Poisson batch: the step still releases noise only
            for p in gsm.parameters():
                p.grad_sample = torch.zeros((0, *p.shape))  # type: ignore[attr-defined]
            losses.append(float("nan"))
        else:
            loss = _masked_mean_nll(gsm, x[idx], y[idx], m[idx]).mean()
            with warnings.catch_warnings():  # opacus' hooks fire on outputs only (integer token inputs): expected
                warnings.filterwarnings("ignore", message="Full backward hook is firing")
                loss.backward()
            losses.append(float(loss.detach()))
        opt.step()
    gsm.eval()
    gsm._close()  # remove the hooks: ``model`` is an ordinary module again
    model.eval()
    return DPTrainLog(steps=steps, batch_sizes=tuple(sizes), losses=tuple(losses))


def _top_p_filter(logits: torch.Tensor, top_p: float) -> torch.Tensor:
    """Nucleus filtering: keep the smallest set of highest-probability tokens whose mass reaches ``top_p``."""
    probs = logits.softmax(-1)
    sp, si = probs.sort(-1, descending=True)
    drop = (sp.cumsum(-1) - sp) >= top_p  # mass before this token already reaches top_p
    sp = sp.masked_fill(drop, 0.0)
    return torch.zeros_like(probs).scatter(-1, si, sp)


@torch.no_grad()
def generate(model: TinyGPT, vocab: Vocab, rows: np.ndarray | None, *, n: int, max_words: int,
             temperature: float = 1.0, top_p: float = 0.95, seed: int) -> tuple[list[list[str]], torch.Tensor]:
    """Sample ``n`` texts ([P28]: temperature 1.0, top-p 0.95), conditioned on ``rows`` (``(n, attributes)``) or
    unconditionally (``rows=None``), at most ``max_words`` tokens each (the closing ``<eos>`` included).
    Returns the words and the full token sequences (prompt + sample)."""
    n, max_words = positive_int(n, "n"), positive_int(max_words, "max_words")
    temperature = real(temperature, "temperature", lo=0.0, lo_open=True)
    top_p = real(top_p, "top_p", lo=0.0, hi=1.0, lo_open=True)
    if rows is not None:
        rows = int_array(rows, "rows", ndim=2, shape=(n, len(ATTRIBUTES)))
    gen = torch.Generator().manual_seed(check_seed(seed))
    idx = torch.tensor([vocab.prompt(None if rows is None else r) for r in (rows if rows is not None else [None] * n)])
    banned = torch.ones(len(vocab), dtype=torch.bool)
    banned[vocab.first_word:] = False
    banned[vocab.stoi[EOS]] = False
    done = torch.zeros(n, dtype=torch.bool)
    steps = min(max_words, model.cfg.block_size - idx.shape[1] + 1)  # a text longer than max_words is cut
    for _ in range(steps):
        logits = model(idx[:, -model.cfg.block_size:])[:, -1] / temperature
        probs = _top_p_filter(logits.masked_fill(banned, float("-inf")), top_p)
        nxt = torch.multinomial(probs, 1, generator=gen).squeeze(1)
        nxt = torch.where(done, torch.full_like(nxt, vocab.stoi[PAD]), nxt)
        done |= nxt == vocab.stoi[EOS]
        idx = torch.cat([idx, nxt[:, None]], 1)
        if bool(done.all()):
            break
    plen = len(vocab.prompt(None if rows is None else rows[0]))
    return [vocab.words(s[plen:].tolist()) for s in idx], idx


def sequence_logprobs(model: torch.nn.Module, seqs: torch.Tensor, prompt_len: int, pad_id: int) -> torch.Tensor:
    """Per-token log-probabilities (B, T-1) of ``seqs`` under ``model``, zero on the prompt and on padding; the RL
    objective of [P28] ARL sums them per sample."""
    logits = model(seqs[:, :-1])
    lp = torch.log_softmax(logits, -1).gather(-1, seqs[:, 1:, None]).squeeze(-1)
    mask = (seqs[:, 1:] != pad_id).float()
    mask[:, : prompt_len - 1] = 0.0
    return lp * mask
