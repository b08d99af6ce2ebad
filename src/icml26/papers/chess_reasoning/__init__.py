"""[P20] Reasoning Through Chess: How Reasoning Evolves from Data Through Fine-Tuning and Reinforcement Learning

What it is: a language model learns to play chess by supervised fine-tuning (SFT) on engine-labelled positions, then
reinforcement learning with a verifiable reward. The SFT data decides what the reasoning becomes: best-move data
(the answer only) gives effective RL but reasoning that does not support the chosen move; best-line data (the
engine's next plies, the answer their first) gives faithful reasoning at comparable strength. RL shifts move quality
up and lowers hallucinated (illegal or non-existent) moves. Here:
  - rules and positions from python-chess (:func:`board_from_fen`, :func:`sample_positions` at the paper's
    full-move balance), the response format ``<think> plies </think> <answer> move </answer>`` in UCI
    (:func:`parse_response`, :func:`legal_prefix`), for our policy's text or any language model's;
  - labels: every legal move's win probability and the best line, from Debian's Stockfish
    (:class:`StockfishLabeller`) or a pure python-chess alpha-beta search (:class:`MinimaxLabeller`), cached on disk
    by FEN (:func:`label_positions`);
  - the predictmove reward (:func:`predictmove_reward`: min-max normalised win probability, cut to 0 below 0.3, 0
    for an illegal answer) and the per-response measures (:func:`score_response`: answer legality, hallucinated
    reasoning plies, faithfulness = answer is the first reasoned ply);
  - the SFT datasets of both arms (:func:`sft_text` for any LM, :func:`sft_tokens` for our TinyGPT policy) and
    Dr.GRPO on :mod:`icml26.common.rl` (:func:`group_advantages`, :func:`drgrpo_loss` for any loop that gives
    per-token log-probabilities; :func:`rl_finetune` for ours, with KV-cached rollouts);
  - playing strength in whole games against a random player or Stockfish at a low depth (:func:`play_match`).

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``):
  1. ``rl_raises_quality`` - RL raises held-out move quality after either SFT arm (Abstract).
  2. ``rl_reduces_hallucination`` - RL lowers the share of responses with an illegal move (Abstract).
  3. ``bestline_faithful`` - best-line SFT keeps reasoning faithful after RL (>= 0.8, >= best-move + 0.3).
  4. ``comparable_quality`` - best-line and best-move reach post-RL quality within 0.05 (Abstract); not judged
     when neither arm plays above a random legal move.
  5. ``bestline_stabler_rl`` - RL after best-line SFT has a steadier reward curve (Abstract).
  6. ``beats_random`` - the post-RL policy outscores a random-legal-move player with mostly its own moves (ours, a
     floor for the paper's comparison with other LLMs; Stockfish reported).

Deviations / reconstructions:
  1. The model is a 2-layer TinyGPT (d = 64) trained from scratch over a move-token vocabulary, not Qwen2.5-7B over
     text; a base policy pre-trained on a legal-move task stands in for what a pretrained LM knows of the board.
  2. Best-move data for a model without reasoning of its own writes a random legal playout in the think block
     (format data unrelated to the answer); the paper's best-move data has no reasoning and its 7B model brings it.
  3. Positions come from games played here (captures preferred with probability 1/2), not searchless chess;
     Stockfish 15.1 at depth 4 labels them (the paper: searchless chess's Stockfish win probabilities).
  4. Hallucinations are illegal moves only: our reasoning is a move line, so wrong board facts cannot be stated.
  5. "SFT-checkpoint metrics predict post-RL performance" is not judged: it needs many SFT checkpoints, each with
     its own RL run (the paper fits across its data mixes); the 7B-vs-open-models comparison is not runnable here.
"""

from icml26.papers.chess_reasoning._board import (
    MOVE_VOCAB,
    Response,
    board_from_fen,
    format_response,
    is_legal,
    legal_prefix,
    parse_response,
)
from icml26.papers.chess_reasoning._data import (
    ARMS,
    legal_tokens,
    prompt_text,
    random_line,
    sft_target,
    sft_text,
    sft_tokens,
)
from icml26.papers.chess_reasoning._decode import forward_cached, response_logprobs, sample
from icml26.papers.chess_reasoning._evaluate import METRICS, evaluate, summarise_scores
from icml26.papers.chess_reasoning._labels import (
    MinimaxLabeller,
    MoveLabels,
    StockfishLabeller,
    label_positions,
    stockfish_path,
    win_probability,
)
from icml26.papers.chess_reasoning._policy import PolicySpec, make_policy, sft_loss, sft_train
from icml26.papers.chess_reasoning._positions import FULLMOVE_BUCKETS, sample_positions
from icml26.papers.chess_reasoning._reward import ResponseScore, normalised_quality, predictmove_reward, score_response
from icml26.papers.chess_reasoning._rl import RLSpec, drgrpo_loss, drgrpo_step, group_advantages, rl_finetune
from icml26.papers.chess_reasoning._rollout import Rollout, rollout
from icml26.papers.chess_reasoning._runs import RunConfig, train_arm
from icml26.papers.chess_reasoning._strength import OPPONENTS, elo_difference, play_match, policy_move
from icml26.papers.chess_reasoning._tokens import PROMPT_LEN, ChessTokenizer

__all__ = [
    "ARMS", "FULLMOVE_BUCKETS", "METRICS", "MOVE_VOCAB", "OPPONENTS", "PROMPT_LEN", "ChessTokenizer", "MinimaxLabeller",
    "MoveLabels", "PolicySpec", "RLSpec", "Response", "ResponseScore", "Rollout", "RunConfig", "StockfishLabeller",
    "board_from_fen", "drgrpo_loss", "drgrpo_step", "elo_difference", "evaluate", "format_response", "forward_cached",
    "group_advantages", "is_legal", "label_positions", "legal_prefix", "legal_tokens", "make_policy",
    "normalised_quality", "parse_response", "play_match", "policy_move", "predictmove_reward", "prompt_text",
    "random_line", "response_logprobs", "rl_finetune", "rollout", "sample", "sample_positions", "score_response",
    "sft_loss", "sft_target", "sft_text", "sft_tokens", "sft_train", "stockfish_path", "summarise_scores",
    "train_arm", "win_probability",
]
