"""[P32] Differential Smoothing Mitigates Sharpening and Improves LLM Reasoning

What it is: RL fine-tuning with verifiable rewards collapses diversity among correct answers (a selection bias: likely
correct trajectories are sampled more; a reinforcement bias: they also get larger updates). The paper argues that a
reward modification only needs to act on correct trajectories and proposes *differential smoothing* (DS): Eq. (4)
r_DS(τ) = r̂(τ) − γ_p log π_base(τ) if τ is correct, r̂(τ) + γ_n log π_base(τ) otherwise; in GRPO form, Eq. (6),
Ã_i = A_i − γ_p log π_old(y_i|x) on correct and A_i + γ_n log π_old(y_i|x) on incorrect samples. Here: the transforms
(vanilla, entropy bonus, entropy minimisation, DS) as functions over a group (on :mod:`icml26.common.rl`'s group
advantages), an exact categorical toy with closed-form pass@k, and a GRPO trainer (:func:`icml26.common.rl.ppo_clip_loss`)
for the shared TinyGPT on CountDown-3 with a verifier.

Claims (words, bars and basis in paper.toml; measured in ``_checks_*.py``, judged in ``_rules.py``):
  1. ``vanilla_collapse`` — RL fine-tuning collapses diversity (CountDown: vanilla GRPO vs the SFT base; the exact
     toy only illustrates it, since its correct-set entropy falls by construction).
  2. ``ds_improves_both`` — DS provably improves correctness and diversity: judged where the theory lives, at the
     closed-form optimum of the KL-regularised objective, over random Dirichlet base policies, two β and a grid of
     γ/β (no counterexample allowed for γ < β); beyond that regime and the finite-step toy runs are our findings.
  3. ``entropy_heuristics`` — entropy heuristics trade correctness for diversity and DS beats them (exact toy).
  4. ``countdown_ds`` — DS improves Pass@1 and Pass@k over vanilla GRPO on CountDown (tiny model, 3 seeds).

Deviations / reconstructions (abstract and secondary notes only; no paper text or code):
  1. Eq. (4)/(6) as quoted by a third-party note; γ_p = γ_n = 0.1 everywhere, fixed before any run (no paper values).
  2. The toy has no generalisation, so pass@k on the train correct set is monotone in pass@1; the diversity-sensitive
     metric is our *variant pass@k*: each correct answer stays correct with probability q = 0.5 on a held-out variant
     (closed form, :func:`variant_pass_at_k`). The paper's own toy/theory setting may differ.
  3. "Exact" toy dynamics are the infinite-group limit of GRPO (population-normalised advantages); the sampled mode
     uses G = 8. One update per batch, so the PPO ratio is 1 and clipping never acts. No KL term in the training runs;
     the KL-regularised optimum (β ∈ {0.5, 2}, ours) is computed in closed form.
  4. CountDown-3 (three digits, + − ×, target 0-99) with a 2-layer TinyGPT (d = 48) SFT'd here on skewed
     demonstrations; 100 GRPO steps; orders of magnitude below the paper's 1B-7B models.
"""

from icml26.papers.diff_smoothing._countdown import (
    CountdownInstance,
    decode,
    encode_prompt,
    make_instances,
    sft_targets,
    verify,
)
from icml26.papers.diff_smoothing._lm import (
    LMConfig,
    evaluate,
    grpo_train,
    make_model,
    sample,
    sequence_logp,
    sft,
)
from icml26.papers.diff_smoothing._passk import (
    categorical_pass_at_k,
    correct_set_entropy,
    expected_distinct_correct,
    pass_at_k,
    variant_pass_at_k,
)
from icml26.papers.diff_smoothing._toy import (
    ToyRun,
    ToyTasks,
    expected_update,
    kl_optimum,
    make_toy_tasks,
    sampled_update,
    toy_metrics,
    train_toy,
)
from icml26.papers.diff_smoothing._transforms import (
    AdvantageTransform,
    differential_smoothing,
    differential_smoothing_reward,
    entropy_bonus,
    entropy_minimization,
    smoothed_advantages,
    vanilla,
)

__all__ = [
    "AdvantageTransform",
    "CountdownInstance",
    "LMConfig",
    "ToyRun",
    "ToyTasks",
    "categorical_pass_at_k",
    "correct_set_entropy",
    "decode",
    "differential_smoothing",
    "differential_smoothing_reward",
    "encode_prompt",
    "entropy_bonus",
    "entropy_minimization",
    "evaluate",
    "expected_distinct_correct",
    "expected_update",
    "grpo_train",
    "kl_optimum",
    "make_instances",
    "make_model",
    "make_toy_tasks",
    "pass_at_k",
    "sample",
    "sampled_update",
    "sequence_logp",
    "sft",
    "sft_targets",
    "smoothed_advantages",
    "toy_metrics",
    "train_toy",
    "vanilla",
    "variant_pass_at_k",
    "verify",
]
