"""[P25] Accordion-Thinking: Self-Regulated Step Summaries for Efficient and Readable LLM Reasoning

What it is: the model reasons in coarse steps, each a thought followed by a short summary in ``<step> … </step>``
tags, and the answer after ``</think>``. In the Fold mode a step is generated from the prompt and the summaries of
the earlier steps only: every finished thought is replaced by a TLDR marker and its keys and values leave the
cache, so the context stays short. The Unfold mode keeps the whole trace. RL teaches the model to put what later
steps need into its summaries: only the leaf (final) step is graded, a leaf that did not end properly gets the format
penalty (0), the advantage is the leaf reward minus its group's mean (no std division), and that one advantage
trains every step segment of the trajectory with PPO-clip; rollouts are mixed, part Fold and part Unfold.

The API is a set of pieces for a user's own loop: :class:`Markers` (the tag token ids), :func:`parse_step`,
:func:`fold_context` / :func:`unfold_context` (the authors' ``format_fold_input_ids``), :func:`fold_rollout` /
:func:`unfold_rollout` over any step sampler (``contexts -> outputs``; :class:`KVSampler` is one for a TinyGPT with
a KV cache), :func:`leaf_reward` / :func:`leaf_rewards` (format punish), :func:`leaf_advantages` and
:func:`broadcast_to_steps`, :func:`accordion_update` (PPO-clip over step segments of any causal LM returning logits)
and :func:`kv_usage` (peak cached tokens and attention cost of a rollout). :func:`train_mixed` is our mixed RL loop.

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``):
  1. ``gap_vanishes`` — over RL the Fold-Unfold accuracy gap narrows and vanishes (Abstract); our run must first
     show the gap (>= 15 points after the lossy cold start), else it is inconclusive.
  2. ``summary_completeness`` — the model learns to encode the essential information in its summaries (Abstract);
     exact on our task (a summary holds the true state or not).
  3. ``fold_kv`` — Fold needs far fewer cached tokens (the 3x throughput restated as peak KV <= 1/3 of Unfold);
     CPU tokens/s with the KV cache are measured beside it and not judged.
  4. ``throughput`` — 3x throughput on a 48GB GPU (Abstract): platform gpu and timed, so unsupported on this CPU.

Deviations / reconstructions (from the abstract, the authors' verl code and our notes):
  1. The task is ours: an accumulator ``x <- x + a mod 13`` (``a`` in {1, 2}) run for 3-6 steps of 24 updates;
     a thought lists the 24 intermediate values, a summary is the value itself. The cold start is ours too: SFT
     on traces where 40 % of the summaries drop the value (``<step> ? </step>``), which creates the initial
     Fold-Unfold gap the claim is about (the paper's cold-start data are synthetic step-summary traces from a
     larger LLM).
  2. The Unfold rollout is one generation cut into steps with the Fold rollout's caps and leaves (our reading of the
     authors' mixed trainer); an Unfold trajectory is trained as one segment.
  3. The policy is a 2-layer TinyGPT trained from scratch; the paper's models are multi-billion-parameter LLMs with
     steps of up to 6144 tokens. Learning rate, iterations and batch sizes are ours, far below the paper's scale.
"""

from icml26.papers.accordion._decode import KVSampler, sample_from_logits
from icml26.papers.accordion._eval import evaluate_policy, mode_summary
from icml26.papers.accordion._format import Markers, Step, fold_context, parse_step, split_steps, unfold_context
from icml26.papers.accordion._policy import PolicySpec, Segment, make_policy, segment_logprobs, segments_of
from icml26.papers.accordion._reward import broadcast_to_steps, leaf_advantages, leaf_reward, leaf_rewards
from icml26.papers.accordion._rl import RLHistory, RLSpec, accordion_update, train_mixed
from icml26.papers.accordion._rollout import fold_rollout, rollout, unfold_rollout
from icml26.papers.accordion._sft import SFTSpec, sft_policy, sft_segments, train_sft
from icml26.papers.accordion._task import AccumulatorTask, Problem, make_problems
from icml26.papers.accordion._trace import KVUsage, StepRecord, Trajectory, kv_usage

__all__ = ["AccumulatorTask", "KVSampler", "KVUsage", "Markers", "PolicySpec", "Problem", "RLHistory", "RLSpec",
           "SFTSpec", "Segment", "Step", "StepRecord", "Trajectory", "accordion_update", "broadcast_to_steps",
           "evaluate_policy", "fold_context", "fold_rollout", "kv_usage", "leaf_advantages", "leaf_reward",
           "leaf_rewards", "make_policy", "make_problems", "mode_summary", "parse_step", "rollout", "sample_from_logits",
           "segment_logprobs", "segments_of", "sft_policy", "sft_segments", "split_steps", "train_mixed", "train_sft",
           "unfold_context", "unfold_rollout"]
