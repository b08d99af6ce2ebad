"""One seed of [P20]'s comparison: the labelled positions, the base policy, both SFT arms, Dr.GRPO from each.

A seed's run: (1) train and evaluation positions from games played here (:func:`._positions.sample_positions`,
one data seed shared by every model seed) labelled once by Stockfish or the minimax labeller (cached by FEN);
(2) one base policy for all seeds, pre-trained on the legal-move task over many unlabelled positions (our
stand-in for what the paper's pretrained model knows of the board); (3) from it the best-move and the best-line SFT arms (same positions, same steps); (4) Dr.GRPO from
each SFT checkpoint. Every stage is evaluated on the held-out positions (:func:`._evaluate.evaluate`). Checkpoints
and run records live under ``<cache>/chess_reasoning/`` keyed by every config field and the seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch

from icml26.common import validation
from icml26.common.cache import cached_value
from icml26.common.nn import TinyGPT
from icml26.papers.chess_reasoning._data import ARMS, legal_tokens, sft_tokens
from icml26.papers.chess_reasoning._evaluate import evaluate
from icml26.papers.chess_reasoning._labels import (
    MinimaxLabeller,
    MoveLabels,
    StockfishLabeller,
    label_positions,
    stockfish_path,
)
from icml26.papers.chess_reasoning._policy import PolicySpec, make_policy, sft_train
from icml26.papers.chess_reasoning._positions import sample_positions
from icml26.papers.chess_reasoning._reward import normalised_quality
from icml26.papers.chess_reasoning._rl import RLSpec, rl_finetune
from icml26.papers.chess_reasoning._strength import play_match
from icml26.papers.chess_reasoning._tokens import ChessTokenizer

__all__ = ["RunConfig", "labelled_positions", "random_quality", "run_seed", "train_arm"]

FORMAT = 1  # bumped when what the cached files hold changes


@dataclass(frozen=True)
class RunConfig:
    """Everything one seed of [P20]'s comparison depends on (all of it is the cache key)."""

    n_train: int = 400
    n_eval: int = 100
    n_pretrain: int = 2000  # unlabelled positions of the legal-move pre-training
    data_seed: int = 0
    labeller: str = "stockfish"  # or "minimax" (pure python-chess; tests and smoke)
    label_depth: int = 4
    policy: PolicySpec = PolicySpec()
    pretrain_steps: int = 400
    sft_steps: int = 300
    sft_lr: float = 3e-3
    sft_batch: int = 64
    copies: int = 2
    legal_share: float = 0.2
    rl: RLSpec = RLSpec(iterations=50)
    eval_samples: int = 4
    games: int = 6  # per opponent, half with each colour
    opponents: tuple[str, ...] = ("random", "stockfish")  # stockfish is skipped when not installed
    max_plies: int = 120
    opponent_depth: int = 1



def _labeller(cfg: RunConfig) -> MinimaxLabeller | StockfishLabeller:
    if cfg.labeller == "minimax":
        return MinimaxLabeller(depth=cfg.label_depth)
    return StockfishLabeller(depth=cfg.label_depth)


def labelled_positions(cfg: RunConfig) -> tuple[list[MoveLabels], list[MoveLabels]]:
    """The train and held-out evaluation positions of ``cfg`` with their labels (cached by FEN and labeller)."""
    validation.choice(cfg.labeller, "labeller", ("stockfish", "minimax"))
    train = sample_positions(cfg.n_train, seed=cfg.data_seed)
    held = sample_positions(cfg.n_eval, seed=cfg.data_seed + 7919, exclude=frozenset(train))
    lab = _labeller(cfg)
    try:
        labels = label_positions(train + held, labeller=lab, line_plies=cfg.policy.line_plies)
    finally:
        lab.close()
    return labels[:cfg.n_train], labels[cfg.n_train:]


def random_quality(labels: Sequence[MoveLabels], *, cut: float) -> float:
    """[P20] move quality of a uniformly random legal move on ``labels``' positions: the mean over positions of the
    mean predictmove score of their legal moves (the floor a policy that plays legally at random reaches)."""
    if not labels:
        raise ValueError("labels must not be empty")
    return float(np.mean([normalised_quality(np.asarray(lab.winprob, dtype=float), cut=cut).mean()
                          for lab in labels]))


def _base(cfg: RunConfig, train: list[MoveLabels], tok: ChessTokenizer) -> TinyGPT:
    """The base policy: pre-trained on the legal-move task over the train positions and ``n_pretrain`` unlabelled
    ones; one checkpoint for every seed (as the paper's runs share one pretrained model), seeded by ``data_seed``."""
    fens = [lab.fen for lab in train]
    if cfg.n_pretrain > 0:
        fens += sample_positions(cfg.n_pretrain, seed=cfg.data_seed + 104729, exclude=frozenset(fens))
    model = make_policy(cfg.policy, seed=cfg.data_seed, tokenizer=tok)
    x, y = legal_tokens(fens, line_plies=cfg.policy.line_plies, seed=cfg.data_seed, tokenizer=tok)
    sft_train(model, x, y, steps=cfg.pretrain_steps, lr=cfg.sft_lr, batch_size=cfg.sft_batch, seed=cfg.data_seed)
    return model


def _sft(cfg: RunConfig, arm: str, base: dict[str, torch.Tensor], train: list[MoveLabels], seed: int,
         tok: ChessTokenizer) -> TinyGPT:
    model = make_policy(cfg.policy, seed=seed, tokenizer=tok)
    model.load_state_dict(base)
    x, y = sft_tokens(train, arm=arm, line_plies=cfg.policy.line_plies, copies=cfg.copies,
                      legal_share=cfg.legal_share, seed=seed, tokenizer=tok)
    sft_train(model, x, y, steps=cfg.sft_steps, lr=cfg.sft_lr, batch_size=cfg.sft_batch, seed=seed)
    return model


def _arm_run(cfg: RunConfig, arm: str, base: dict[str, torch.Tensor], train: list[MoveLabels],
             held: list[MoveLabels], seed: int) -> dict[str, Any]:
    tok = ChessTokenizer()
    model = _sft(cfg, arm, base, train, seed, tok)
    ev = {"tokenizer": tok, "samples": cfg.eval_samples, "seed": seed + 1, "cut": cfg.rl.cut}
    sft_eval = evaluate(model, held, **ev)
    sft_greedy = evaluate(model, held, **{**ev, "temperature": 0.0})
    curve = rl_finetune(model, train, spec=cfg.rl, seed=seed, tokenizer=tok)
    rl_eval = evaluate(model, held, **ev)
    rl_greedy = evaluate(model, held, **{**ev, "temperature": 0.0})
    games = {}
    for opp in cfg.opponents if cfg.games > 0 else ():
        if opp == "stockfish" and stockfish_path() is None:
            continue
        games[opp] = play_match(model, opponent=opp, games=cfg.games, seed=seed, tokenizer=tok,
                                max_plies=cfg.max_plies, depth=cfg.opponent_depth)
    return {"sft": sft_eval, "sft_greedy": sft_greedy, "rl": rl_eval, "rl_greedy": rl_greedy, "curve": curve,
            "games": games}


def run_seed(item: tuple[RunConfig, int]) -> list[dict[str, Any]]:
    """Both arms of one seed of [P20]'s comparison (module docstring): one row per arm with the SFT and post-RL
    measures (``sft_*``, ``rl_*``), the reward curve and the games against each opponent."""
    cfg, seed = item
    seed = validation.seed(seed)
    train, held = labelled_positions(cfg)
    floor = random_quality(held, cut=cfg.rl.cut)
    tok = ChessTokenizer()
    key = {"format": FORMAT, "seed": seed, **asdict(cfg)}
    base = cached_value("chess_reasoning", {**key, "seed": None, "what": "base"}, "policy.pt",
                        lambda: _base(cfg, train, tok).state_dict())
    rows = []
    for arm in ARMS:
        run = cached_value("chess_reasoning", {**key, "what": "arm", "arm": arm}, "run.json",
                           lambda a=arm: _arm_run(cfg, a, base, train, held, seed))
        rewards = [c["reward"] for c in run["curve"]]
        row: dict[str, Any] = {"arm": arm, "seed": seed, "reward_curve": rewards, "random_quality": floor,
                               "reward_jitter": float(np.std(np.diff(rewards))) if len(rewards) > 2 else float("nan"),
                               "curve": run["curve"]}
        for stage in ("sft", "rl", "sft_greedy", "rl_greedy"):
            row.update({f"{stage}_{k}": v for k, v in run[stage].items()})
        for opp, g in run["games"].items():
            row.update({f"vs_{opp}_{k}": v for k, v in g.items()})
        rows.append(row)
    return rows


def train_arm(cfg: RunConfig, arm: str, *, seed: int) -> tuple[TinyGPT, dict[str, Any]]:
    """Train one [P20] arm from scratch (nothing cached): the labelled positions, the legal-move base policy, SFT
    for ``arm`` (``bestmove`` or ``bestline``), then Dr.GRPO. Returns the policy and its record (the SFT and post-RL
    measures and the reward curve)."""
    if not isinstance(cfg, RunConfig):
        raise TypeError(f"cfg must be a RunConfig, got {type(cfg).__name__}")
    arm = validation.choice(arm, "arm", ARMS)
    seed = validation.seed(seed)
    train, held = labelled_positions(cfg)
    tok = ChessTokenizer()
    model = _sft(cfg, arm, _base(cfg, train, tok).state_dict(), train, seed, tok)
    ev = {"tokenizer": tok, "samples": cfg.eval_samples, "seed": seed + 1, "cut": cfg.rl.cut}
    record: dict[str, Any] = {"sft": evaluate(model, held, **ev)}
    record["curve"] = rl_finetune(model, train, spec=cfg.rl, seed=seed, tokenizer=tok)
    record["rl"] = evaluate(model, held, **ev)
    return model, record
