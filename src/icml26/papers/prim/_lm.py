"""The tiny audio-visual LM of the [P31] toy and its prefill with token compression at equal attention FLOPs.

:class:`TinyAVLM` embeds video patch tokens, spectrogram-slice tokens and two question tokens (each with its own
frame/slot position, kept when tokens are dropped), runs a pre-LN bidirectional transformer over
[video, audio, text] and answers from the last text token. Audio and video tokens of one time step share their
temporal position twice: one learnt frame embedding, and a learnt attention bias per layer, head and (query, key)
modality pair indexed by the frame distance |t_i − t_j| of two audio/video tokens (zero for pairs with a question
token; half of the heads start local, ALiBi-style, at −4·|Δt|), which lets a token find the other modality's tokens
of its own moment in one attention step. Our initialisation (:class:`AVLMConfig`) makes the square's pixels and the
token positions stand out of each other from the first step; together with the static-square warm-up of
:class:`._train.TrainConfig` it lets every seed learn the moment question (a plain 1/sqrt(fan-in), 0.3-std init
leaves it on a plateau at 0.4-0.7, and the initialisation alone leaves one seed of three there).
Ours: the paper's LMMs are pretrained omni models.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from icml26.common import validation
from icml26.papers.prim._scores import llm_adaptive_retention

__all__ = ["AVLMConfig", "TinyAVLM", "attention_flops", "plan_counts"]

N_TEXT = 2  # question tokens: [question type, answer slot]


@dataclass(frozen=True)
class AVLMConfig:
    """Sizes of the [P31] toy :class:`TinyAVLM` (the clip shape of :func:`._data.make_clips`) and our initialisation:
    ``video_gain`` scales the patch embedding's 1/sqrt(fan-in) weights (the square's few bright pixels stand out of
    the positions from the start), ``position_std`` is the std of the frame/patch/slice/modality embeddings,
    ``local_slope`` the initial −slope·|Δt| temporal bias of the local heads, and the temporal bias is stored divided
    by ``bias_scale`` (a larger effective learning rate for it under Adam)."""

    d_model: int = 64
    n_head: int = 4
    mlp_ratio: int = 2
    n_layer: int = 3
    frames: int = 8
    patches: int = 16
    audio_per_frame: int = 4
    video_dim: int = 48
    audio_dim: int = 32
    n_questions: int = 3
    n_answers: int = 4
    video_gain: float = 4.0
    position_std: float = 1.0
    local_slope: float = 4.0
    bias_scale: float = 4.0


class _Block(nn.Module):
    def __init__(self, d: int, n_head: int, mlp_ratio: int) -> None:
        super().__init__()
        self.n_head = n_head
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, mlp_ratio * d), nn.GELU(), nn.Linear(mlp_ratio * d, d))

    def forward(self, x: Tensor, key_mask: Tensor | None, bias: Tensor | None = None) -> tuple[Tensor, Tensor]:
        b, n, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, n, 3, self.n_head, d // self.n_head).permute(2, 0, 3, 1, 4)
        logits = q @ k.transpose(-1, -2) / math.sqrt(d // self.n_head)
        if bias is not None:
            logits = logits + bias
        if key_mask is not None:
            logits = logits.masked_fill(~key_mask[:, None, None, :], float("-inf"))
        probs = logits.softmax(dim=-1)
        x = x + self.proj((probs @ v).transpose(1, 2).reshape(b, n, d))
        return x + self.mlp(self.ln2(x)), probs


class TinyAVLM(nn.Module):
    """The toy audio-visual LM of [P31]'s reproduction (ours; the paper compresses pretrained omni LMMs)."""

    def __init__(self, cfg: AVLMConfig, *, seed: int) -> None:
        super().__init__()
        validation.seed(seed)
        self.cfg = cfg
        d = cfg.d_model
        self.video_in, self.audio_in = nn.Linear(cfg.video_dim, d), nn.Linear(cfg.audio_dim, d)
        self.frame_pos = nn.Parameter(torch.zeros(cfg.frames, d))
        self.patch_pos = nn.Parameter(torch.zeros(cfg.patches, d))
        self.slice_pos = nn.Parameter(torch.zeros(cfg.audio_per_frame, d))
        self.modality = nn.Parameter(torch.zeros(2, d))
        self.time_bias = nn.Parameter(torch.zeros(cfg.n_layer, cfg.n_head, 4, cfg.frames))  # modality pair, |t_i - t_j|
        self.question = nn.Embedding(cfg.n_questions, d)
        self.slot = nn.Parameter(torch.zeros(1, d))
        self.blocks = nn.ModuleList(_Block(d, cfg.n_head, cfg.mlp_ratio) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, cfg.n_answers)
        g = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            positions = ("frame_pos", "patch_pos", "slice_pos", "modality")
            for name, p in self.named_parameters():  # our init: 1/sqrt(fan-in) weights, 0.3 embeddings, zero biases
                if ".ln" in name or name.startswith("ln_f"):  # LayerNorm: ones and zeros already
                    continue
                if name.endswith("bias"):  # nn.Linear's biases (global RNG) and the temporal bias start at zero
                    p.zero_()
                    continue
                std = 1.0 / math.sqrt(p.shape[1]) if name.endswith("weight") and p.ndim == 2 else 0.3
                if name.startswith("question"):
                    std = 0.3
                elif name in positions:
                    std = cfg.position_std
                elif name == "video_in.weight":
                    std *= cfg.video_gain
                p.copy_(std * torch.randn(p.shape, generator=g))
            slope = (torch.arange(cfg.n_head) % 2).double() * cfg.local_slope  # ours: odd heads start local
            self.time_bias.copy_(-slope[None, :, None, None] * torch.arange(cfg.frames).double() / cfg.bias_scale)

    @property
    def n_av(self) -> int:
        """Audio/video tokens per clip."""
        c = self.cfg
        return c.frames * (c.patches + c.audio_per_frame)

    def token_frames(self) -> Tensor:
        """The frame index (n_av,) of every audio/video token in the order of :meth:`embed` (video, then audio)."""
        c = self.cfg
        t = torch.arange(c.frames)
        return torch.cat([t.repeat_interleave(c.patches), t.repeat_interleave(c.audio_per_frame)])

    def _time_bias(self, layer: int, tokens: Tensor, n_text: int) -> Tensor:
        """(B, h, n + m, n + m) additive attention logits of ``layer`` (0-based) for the audio/video tokens of indices
        ``tokens`` (B, n) (B = 1: shared by every clip) in the order of :meth:`embed`: the learnt bias of their
        modality pair and frame distance; rows and columns of the question tokens get 0."""
        frame = self.token_frames()[tokens]
        audio = (tokens >= self.cfg.frames * self.cfg.patches).long()
        code = (2 * audio[:, :, None] + audio[:, None, :]) * self.cfg.frames
        code = code + (frame[:, :, None] - frame[:, None, :]).abs()
        bias = self.cfg.bias_scale * self.time_bias[layer].reshape(self.cfg.n_head, -1)
        av = bias[:, code].permute(1, 0, 2, 3)  # (B, h, n, n)
        return F.pad(av, (0, n_text, 0, n_text))

    def embed(self, video: Tensor, audio: Tensor, question: Tensor) -> tuple[Tensor, Tensor]:
        """(B, n_av, d) audio/video tokens (video first) and (B, 2, d) question tokens, positions included."""
        b = video.shape[0]
        v = self.video_in(video) + self.frame_pos[:, None] + self.patch_pos[None] + self.modality[0]
        a = self.audio_in(audio) + self.frame_pos[:, None] + self.slice_pos[None] + self.modality[1]
        text = torch.stack([self.question(question), self.slot.expand(b, -1)], dim=1)
        return torch.cat([v.reshape(b, -1, v.shape[-1]), a.reshape(b, -1, a.shape[-1])], dim=1), text

    def first_layer_keys(self, av: Tensor, text: Tensor) -> tuple[np.ndarray, np.ndarray]:
        """The first layer's keys of the audio/video tokens and queries of the question tokens ([P31] stage (i)
        reads its text-conditioned relevance from them), as float64 arrays (B, n, d) and (B, 2, d)."""
        blk = self.blocks[0]
        assert isinstance(blk, _Block)
        d = self.cfg.d_model
        with torch.no_grad():
            k = blk.qkv(blk.ln1(av))[..., d:2 * d]
            q = blk.qkv(blk.ln1(text))[..., :d]
        return k.double().numpy(), q.double().numpy()

    def run(self, av: Tensor, text: Tensor, *, tokens: Tensor | None = None, key_mask: Tensor | None = None,
            prune_after: int | None = None, keep: int | None = None,
            rank: Callable[[np.ndarray, int], np.ndarray] | None = None) -> Tensor:
        """Answer logits (B, n_answers) for the sequence [av, text]; ``tokens`` (B, n) are the indices of the
        audio/video tokens in the order of :meth:`embed` (default: all of them). With ``prune_after`` and ``keep``,
        only ``keep`` audio/video tokens per clip continue after layer ``prune_after``: ``rank(attn, keep)`` (default:
        the top by the question's attention there, :func:`llm_adaptive_retention`) picks them from attn (h, m, n)."""
        b, n = av.shape[:2]
        if tokens is None:  # the whole sequence: one (1, h, n, n) bias per layer, broadcast over the clips
            if n != self.n_av:
                raise ValueError(f"tokens must be given for a selection of {n} of the {self.n_av} tokens")
            tokens = torch.arange(n)[None]
        x = torch.cat([av, text], dim=1)
        mask = None if key_mask is None else torch.cat([key_mask, key_mask.new_ones(b, text.shape[1])], 1)
        for layer, blk in enumerate(self.blocks, start=1):
            x, probs = blk(x, mask, self._time_bias(layer - 1, tokens, text.shape[1]))
            if prune_after == layer and keep is not None and keep < n:
                attn = probs[:, :, n:, :n].detach().double().numpy()
                pick = rank or (lambda a, kk: llm_adaptive_retention(a, ratio=kk / a.shape[-1]))
                idx = torch.as_tensor(np.stack([pick(attn[i], keep)[:keep] for i in range(b)]))
                x = torch.cat([torch.gather(x[:, :n], 1, idx[..., None].expand(-1, -1, x.shape[-1])), x[:, n:]], 1)
                mask = None if mask is None else torch.cat([torch.gather(mask[:, :n], 1, idx), mask[:, n:]], 1)
                tokens = torch.gather(tokens.expand(b, -1), 1, idx)
                n = keep
        return self.head(self.ln_f(x[:, -1]))


def attention_flops(tokens_per_layer: list[int]) -> int:
    """[P31] comparison: attention FLOPs of a prefill up to a constant factor (4·d per pair): Σ_l n_l², n_l the tokens of layer l."""
    return int(sum(int(t) ** 2 for t in tokens_per_layer))


def plan_counts(n_av: int, k: int, rho: float | None, *, n_layer: int, prune_after: int = 1,
                n_text: int = N_TEXT) -> tuple[int, int]:
    """Equal attention FLOPs for [P31]'s comparison: (k1, k2), the audio/video tokens entering the LM and those left
    after layer ``prune_after`` when a fraction ``rho`` is retained there, with k1 the largest count whose FLOPs
    prune_after·(k1 + m)² + (L − prune_after)·(k2 + m)² do not exceed L·(k + m)², those of keeping k throughout."""
    n_av = validation.positive_int(n_av, "n_av")
    k = validation.int_at_least(k, "k", 1, hi=n_av)
    if rho is None or rho >= 1.0:
        return k, k
    rho = validation.real(rho, "rho", lo=0.0, hi=1.0, lo_open=True)
    target = n_layer * (k + n_text) ** 2
    for k1 in range(n_av, k - 1, -1):
        k2 = max(1, math.ceil(rho * k1 - 1e-9))
        if prune_after * (k1 + n_text) ** 2 + (n_layer - prune_after) * (k2 + n_text) ** 2 <= target:
            return k1, k2
    return k, k


def masked_loss(model: TinyAVLM, video: Tensor, audio: Tensor, question: Tensor, answer: Tensor,
                gen: torch.Generator, drop_prob: float) -> Tensor:
    """Cross-entropy with token-drop augmentation in training (ours): with probability ``drop_prob`` a clip keeps
    each audio/video token with a probability drawn from U(0.1, 1), so that the LM has seen pruned inputs."""
    av, text = model.embed(video, audio, question)
    mask = None
    if model.training and drop_prob > 0:
        b, n = av.shape[:2]
        keep_p = torch.where(torch.rand(b, 1, generator=gen) < drop_prob, 0.1 + 0.9 * torch.rand(b, 1, generator=gen),
                             torch.ones(b, 1))
        mask = torch.rand(b, n, generator=gen) < keep_p
        mask[:, 0] |= ~mask.any(dim=1)
    return F.cross_entropy(model.run(av, text, key_mask=mask), answer)
