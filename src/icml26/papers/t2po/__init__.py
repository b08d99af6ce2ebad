"""[P15] T²PO: Uncertainty-Guided Exploration Control for Stable Multi-Turn Agentic Reinforcement Learning

What it is: multi-turn agent RL (think, act, observe, repeat; a sparse success reward) is unstable because the
policy keeps producing low-information actions. T²PO controls exploration at two levels, by reshaping the rollouts
and leaving the loss of the base estimator (PPO, GRPO, GiGPO) unchanged:
  - token level (TTI): a fused uncertainty ``M_t`` of each next-token distribution (entropy and confidence) is
    watched inside a think segment; once its windowed change falls below ``eps`` the segment is ended (the
    end-of-thinking token is forced) and the action is generated; a hard cap bounds every segment;
  - turn level (TDS): a turn whose score (mean token entropy of its response) moved from the previous turn's by less
    than ``eta`` (but moved) made no exploration progress and is regenerated, at most ``max_try`` times.
Both are hooks for any rollout loop (:func:`uncertainty`, :class:`ThinkingIntervention`, :class:`TurnResampler`);
the base estimator GiGPO's anchor-state advantages are :func:`gigpo_advantages`. Two environments with a
gymnasium-style API measure low-information turns exactly (:class:`NumberHunt`, :class:`GridMaze`), and a
KV-cached TinyGPT rollout (:func:`multi_turn_rollout`) with a trainer (:func:`train_agent`: GRPO, GiGPO, T²PO
and the ablations GiGPO+TTI, GiGPO+TDS, through :mod:`icml26.common.rl`) runs the comparison.

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``):
  1. ``higher_success`` — better final success than the baselines (Abstract).
  2. ``fewer_low_info_turns`` — fewer low-information turns (Abstract).
  3. ``fewer_think_tokens`` — fewer think tokens, from the thinking intervention (Abstract, Sec. 3).
  4. ``fewer_collapses`` — baselines collapse, T²PO trains stably (Abstract); no collapse in either arm is
     inconclusive.

Deviations / reconstructions (the abstract, the released turn-level loop and the notes; no paper text):
  1. The fusion ``M_t = w H_t / log|V| + (1 − w)(1 − max p)`` (w = 1/2) and the window rule
     ``|mean(M[t−w+1..t]) − mean(M[t−2w+1..t−w])| < eps`` are ours; the paper gives neither formula.
  2. The turn score is the mean token entropy of the response (nats), our reading of the released
     ``turn_level_score`` (called the turn-level entropy there, produced by code that was not released), so that
     the released ``eta = 0.3`` keeps its scale.
  3. T²PO is GiGPO's advantages with both interventions (as the released scripts); the interventions' forced
     ``</think>`` tokens are trained on like sampled ones; evaluation uses TTI and no resampling.
  4. The environments, the noisy-expert cold start (random-length thinking over still-possible actions, 30 %
     hesitations), the 2-layer TinyGPT and the scale (64 episodes x 50 iterations) are ours, far below the paper's
     7B agents on WebShop, ALFWorld and Search QA; collapse can only come from our learning rate.
"""

from icml26.papers.t2po._envs import GridMaze, NumberHunt, guess_information, make_maze, maze_distances
from icml26.papers.t2po._gigpo import GiGPOAdvantages, gigpo_advantages, step_returns
from icml26.papers.t2po._interventions import Resampled, ThinkingIntervention, TurnResampler
from icml26.papers.t2po._policy import AgentVocab, KVDecoder, make_policy
from icml26.papers.t2po._rollout import Episodes, multi_turn_rollout
from icml26.papers.t2po._runs import train_agent
from icml26.papers.t2po._train import ARMS, TrainConfig
from icml26.papers.t2po._uncertainty import entropy, turn_score, uncertainty

__all__ = [
    "ARMS",
    "AgentVocab",
    "Episodes",
    "GiGPOAdvantages",
    "GridMaze",
    "KVDecoder",
    "NumberHunt",
    "Resampled",
    "ThinkingIntervention",
    "TrainConfig",
    "TurnResampler",
    "entropy",
    "gigpo_advantages",
    "guess_information",
    "make_maze",
    "make_policy",
    "maze_distances",
    "multi_turn_rollout",
    "step_returns",
    "train_agent",
    "turn_score",
    "uncertainty",
]
