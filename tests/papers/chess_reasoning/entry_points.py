"""The public entry points of [P20] for the bad-input conformance test."""

import numpy as np

from icml26.papers.chess_reasoning import (
    ChessTokenizer,
    MinimaxLabeller,
    PolicySpec,
    elo_difference,
    evaluate,
    group_advantages,
    label_positions,
    make_policy,
    normalised_quality,
    play_match,
    predictmove_reward,
    sample_positions,
    sft_text,
    sft_tokens,
    win_probability,
)
from support.badinput import Entry

TOK = ChessTokenizer()
_LABELS = label_positions(["4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"],
                          labeller=MinimaxLabeller(depth=1), line_plies=2)
_SPEC = PolicySpec(d_model=16, n_layer=1, n_head=2, line_plies=2)
_MODEL = make_policy(_SPEC, seed=0, tokenizer=TOK)
_WP = {"a2a3": 0.2, "b2b3": 0.5}


def _evaluate(samples, temperature, seed):
    return evaluate(_MODEL, _LABELS, tokenizer=TOK, samples=samples, temperature=temperature, seed=seed)


def _match(opponent, games, seed, max_plies):
    return play_match(_MODEL, opponent=opponent, games=games, seed=seed, tokenizer=TOK, max_plies=max_plies)


def _reward(answer, cut):
    return predictmove_reward(answer, _WP, cut=cut)


def _sft_tokens(arm, line_plies, copies, legal_share, seed):
    return sft_tokens(_LABELS, arm=arm, line_plies=line_plies, copies=copies, legal_share=legal_share, seed=seed,
                      tokenizer=TOK)


def _sft_text(arm, line_plies, seed):
    return sft_text(_LABELS, arm=arm, line_plies=line_plies, seed=seed)


def _make_policy(seed):
    return make_policy(_SPEC, seed=seed, tokenizer=TOK)


ENTRY_POINTS = [
    Entry("normalised_quality", normalised_quality, valid={"winprob": np.array([0.2, 0.5, 0.8]), "cut": 0.3},
          kinds={"winprob": "array", "cut": "real"}),
    Entry("predictmove_reward", _reward, valid={"answer": "a2a3", "cut": 0.3}, kinds={"cut": "real"}),
    Entry("group_advantages", group_advantages, valid={"rewards": np.array([1.0, 0.0, 0.5, 0.5]), "group": 2},
          kinds={"rewards": "array", "group": "int"}),
    Entry("win_probability", win_probability, valid={"score": 120.0}, kinds={"score": "real"}),
    Entry("elo_difference", elo_difference, valid={"score": 0.6}, kinds={"score": "real"}),
    Entry("sample_positions", sample_positions,
          valid={"n": 3, "seed": 0, "greedy": 0.5, "min_legal": 5, "per_game": 1},
          kinds={"n": "int", "seed": "seed", "greedy": "real", "min_legal": "int", "per_game": "int"}),
    Entry("MinimaxLabeller", MinimaxLabeller, valid={"depth": 1}, kinds={"depth": "int"}),
    Entry("sft_text", _sft_text, valid={"arm": "bestline", "line_plies": 2, "seed": 0},
          kinds={"arm": "str", "line_plies": "int", "seed": "seed"}),
    Entry("sft_tokens", _sft_tokens, valid={"arm": "bestmove", "line_plies": 2, "copies": 1, "legal_share": 0.2,
                                            "seed": 0},
          kinds={"arm": "str", "line_plies": "int", "copies": "int", "legal_share": "real", "seed": "seed"}),
    Entry("make_policy", _make_policy, valid={"seed": 0}, kinds={"seed": "seed"}),
    Entry("evaluate", _evaluate, valid={"samples": 2, "temperature": 1.0, "seed": 0},
          kinds={"samples": "int", "temperature": "nonneg", "seed": "seed"}),
    Entry("play_match", _match, valid={"opponent": "random", "games": 1, "seed": 0, "max_plies": 4},
          kinds={"opponent": "str", "games": "int", "seed": "seed", "max_plies": "int"}),
]
