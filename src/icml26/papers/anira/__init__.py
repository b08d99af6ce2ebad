"""[P23] Understanding Dynamic Compute Allocation in Recurrent Transformers

What it is: ANIRA, a recurrent (looped) transformer whose depth is chosen per token. An embedding and one prelude
block give h^0; one shared block B is applied up to T times, B(h^{t-1}; h^0) with the prelude state injected into
its attention input; a LayerNorm and a linear head read every token out. A token that stops is frozen (its state is
copied bit for bit) but stays a key/value for the tokens still running, so the policies differ only in how much
compute each token gets:
  - ANIRA-E (early): a router on h^0 picks d_i in 1..T before the loop, a straight-through Gumbel-softmax one-hot z
    whose "still running" masks a_t = sum_{k>=t} z_k gate the updates; loss CE + lambda E[d_i].
  - ANIRA-O (online): a halting unit on the current state after each iteration, by ACT's rule (Graves 2016: halt
    when the halting mass reaches 1 - eps, output the weighted state, cost tau (N + R)) or PonderNet's (Banino et al.
    2021: halting distribution p_t, loss sum_t p_t CE_t + beta KL(p || truncated geometric prior)).
  - Baselines: fixed depth, and Mixture-of-Depths (Raposo et al. 2024: a router lets the top-capacity tokens run at
    every iteration). ACT and PonderNet are the two halting rules of ANIRA-O.
Per-token compute is counted in iterations and in FLOPs (``token_flops``), the FLOPs of ``sparse_forward``, which
computes only the rows an iteration needs (an operation counter agrees with the count exactly).

Tasks with per-token ground-truth difficulty the model never sees: pointer chasing (hops), addition (carry-chain
look-back), layered topological sort (Kahn round; with static and execution-state features per node).

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``):
  1. ``depth_tracks_difficulty`` — compute aligned with complexity emerges without difficulty supervision.
  2. ``no_length_extrapolation`` — yet the models fail on longer inputs although they allocate more compute.
  3. ``decision_timing`` — early decisions follow static cues, online halting follows execution state.

Reconstructed (the abstract and third-party notes only; no paper text or code):
  1. The architecture (one prelude block, additive input injection, a per-token linear read-out), the router and
     halting parametrisations, the halting bias initialised at -2 (start deep), lambda = tau = beta = 0.01, the
     PonderNet prior lambda_p = 0.3, eps = 0.01, Gumbel temperature 1.
  2. PonderNet inside ANIRA: a token stops (and freezes) once its halting mass reaches 1 - eps and keeps the rest
     of the mass at that step, so that training and evaluation run the same loop; the prediction is the
     halting-weighted mixture of the step predictions.
  3. The tasks are our per-token instances of the notes' T1-T3 (one output per token rather than one query), with
     our sizes; out-of-distribution accuracy is read on the tokens beyond the training range.
  4. Mixture-of-Depths in a looped model: every state (selected or not) is a key/value; the update of a selected
     token is scaled by the sigmoid of its router score.
"""

from icml26.papers.anira._analysis import by_difficulty, depth_difficulty_rho, r_squared
from icml26.papers.anira._halting import (
                                          act_halting,
                                          act_step,
                                          alive_from_depth,
                                          expected_depth,
                                          geometric_prior,
                                          ponder_distribution,
                                          ponder_kl,
                                          ponder_step,
                                          straight_through_depth,
)
from icml26.papers.anira._infer import sparse_forward, token_flops
from icml26.papers.anira._model import RecurrentConfig, RecurrentOutput, RecurrentTransformer
from icml26.papers.anira._tasks import TokenTask, addition, carry_lookback, pointer_chasing
from icml26.papers.anira._topo import STATE_FEATURES, STATIC_FEATURES, kahn_rounds, topological_levels
from icml26.papers.anira._train import METHODS, evaluate_tokens, train_recurrent

__all__ = [
    "METHODS",
    "STATE_FEATURES",
    "STATIC_FEATURES",
    "RecurrentConfig",
    "RecurrentOutput",
    "RecurrentTransformer",
    "TokenTask",
    "act_halting",
    "act_step",
    "addition",
    "alive_from_depth",
    "by_difficulty",
    "carry_lookback",
    "depth_difficulty_rho",
    "evaluate_tokens",
    "expected_depth",
    "geometric_prior",
    "kahn_rounds",
    "pointer_chasing",
    "ponder_distribution",
    "ponder_kl",
    "ponder_step",
    "r_squared",
    "sparse_forward",
    "straight_through_depth",
    "token_flops",
    "topological_levels",
    "train_recurrent",
]
