"""[P16] Agent0-VL: Exploring Self-Evolving Agent for Tool-Integrated Vision-Language Reasoning

What it is: one vision-language policy in two roles. The Solver reasons over an image in several turns, each a
thought, a tool call (executed, its output appended) or the answer. The Verifier scores every Solver step
(score in [−1, 1], confidence in [0, 1], a critique) and may call tools itself to check it, so that its judgement
rests on evidence rather than on the text. A step whose confidence falls below τ is repaired: the Solver redoes it
from the critique, at a cost in reward. The Self-Evolving Reasoning Cycle (SERC) runs generate → verify → repair →
self-reward on unlabeled images and updates the shared policy with GRPO: no human label, no external reward model.

Here: :func:`solve`, :func:`verify`, :func:`repair_gate`, :func:`repair`, :func:`self_reward` and :func:`serc`
over any :class:`Policy` (a protocol a real LVLM can fill), with real tools (:class:`ToolBox`: the pixel-measuring
tool :func:`measure_object` that reads the rendered image array, and the sandboxed interpreter
:func:`evaluate_arithmetic`), figures rendered with matplotlib (:func:`make_tasks`: bar charts, line charts, circle
panels and triangles with known measures) and :class:`ToyVLM`, a small torch policy trained here.

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``):
  1. ``self_evolution_gain`` — accuracy rises over the evolution iterations without external reward.
  2. ``tool_grounded_verification`` — tool-grounded verification ranks steps better than text-only evaluation.
  3. ``zero_reward_recovery`` — the zero-reward loop recovers most of a label-reward run's gain.
  4. ``text_only_gains_less`` — evolving with a text-only verifier gains less.

Deviations / reconstructions (arXiv abstract and secondary summaries; no code was released):
  1. No LVLM installs offline: :class:`ToyVLM` sees each object through a coarse quantised crop (8 x 8 blocks,
     three grey levels), so reading a value by sight is off by a unit or two (a triangle's side: the whole figure
     in 16 x 24 blocks, little better than a guess), and decides per step between a tool and its own reading or
     mental arithmetic (sums, differences, maxima, perimeters, angles by the law of cosines). Its Verifier role (text-only) is its own belief in a claimed value.
  2. The tool-grounded Verifier re-derives each step's quantity with the tool of its kind; the paper's Verifier
     chooses its own tool calls. Confidence is 1 when the evidence agrees and 0 otherwise; the gate is conf < τ.
     The pixel tool is exact on the figures' own renders (a triangle's sides from its corners, found on the
     convex hull of the dark pixels and refined by a line fit per edge), so the verification claim scores both Verifiers on the
     test figures re-rendered with pixel noise of std 0.1, where the tool misreads some objects. A second text-only
     Verifier believes the transcript's tool outputs (``trust_tool_outputs``): the stronger text-only baseline.
  3. Reward: mean step score − 0.1 · repairs + 0.1 · well-formed (weights ours); GRPO trains on the sampled
     trajectory, the repaired one is the inner loop's output. One policy-gradient update per batch, no KL term.
  4. Zero annotation holds for the evolution phase only: the cold start (:func:`cold_start`) fits programmatic
     traces built from labels (true readings; tools called 30 % of the time; mental arithmetic right 60 % of the
     time, on drills of every operation), standing in for the paper's cold-start SFT. :func:`serc` never reads a label (tested with a sentinel).
  5. Geometry answers are whole numbers: a triangle's vertices lie on the unit grid and its sides are whole units
     (:data:`TRIANGLE_SHAPES`); angles are asked in whole degrees.
  6. Scale: 200 figures, 3 iterations x 12 GRPO steps of 8 figures x 8 samples per seed, against the paper's 7B/8B
     models on seven benchmarks; only the direction of the claims is checkable (tier C).
"""

from icml26.papers.agent0vl._agent import (
    Feedback,
    Trajectory,
    repair,
    repair_gate,
    self_reward,
    solve,
    verify,
)
from icml26.papers.agent0vl._geometry import TRIANGLE_SHAPES, angle_degrees
from icml26.papers.agent0vl._measure import triangle_vertices
from icml26.papers.agent0vl._policy import ARITH_KINDS, STEP_KINDS, Policy, Step, ToyVLM, expression
from icml26.papers.agent0vl._render import (
    FIGURE_KINDS,
    QUESTION_KINDS,
    QUESTIONS,
    Label,
    Layout,
    Question,
    Task,
    View,
    answer_of,
    make_tasks,
    render_figure,
)
from icml26.papers.agent0vl._runs import ARMS, RunConfig, run_seed, verifier_scores
from icml26.papers.agent0vl._serc import SERCConfig, accuracy, cold_start, family_accuracy, oracle_grpo, serc
from icml26.papers.agent0vl._tools import ToolBox, ToolError, ToolResult, evaluate_arithmetic, measure_object

__all__ = [
    "ARITH_KINDS",
    "ARMS",
    "FIGURE_KINDS",
    "QUESTIONS",
    "QUESTION_KINDS",
    "STEP_KINDS",
    "TRIANGLE_SHAPES",
    "Feedback",
    "Label",
    "Layout",
    "Policy",
    "Question",
    "RunConfig",
    "SERCConfig",
    "Step",
    "Task",
    "ToolBox",
    "ToolError",
    "ToolResult",
    "ToyVLM",
    "Trajectory",
    "View",
    "accuracy",
    "angle_degrees",
    "answer_of",
    "cold_start",
    "evaluate_arithmetic",
    "expression",
    "family_accuracy",
    "make_tasks",
    "measure_object",
    "oracle_grpo",
    "render_figure",
    "repair",
    "repair_gate",
    "run_seed",
    "self_reward",
    "serc",
    "solve",
    "triangle_vertices",
    "verifier_scores",
    "verify",
]
