"""[P02] Monitoring Monitorability

What it is: monitorability is how well a monitor, observing part of what an agent produced (its actions, its chain of
thought, the CoT of its answer to a follow-up question), predicts a property of the agent's behaviour. It is scored by
g-mean² = TPR × TNR, which ignores class balance and gives 0 to a monitor that ignores either class. The suite has
three archetypes: *intervention* (a controlled change of the input, e.g. a hint; did it drive the answer?),
*process* (tasks with a few known solution paths; which one was taken?) and *outcome-property* (a measurable
property of the outcome, e.g. reward hacking). Here: the metric with bootstrap CIs (:func:`g_mean2_ci`,
:func:`g_mean2_bootstrap`), the intervention estimator with cross-fit filtering (:func:`intervention_g_mean2`), the
``Agent``/``Monitor``/``Eval`` protocols with evals of the three archetypes and a runner (:func:`run_eval`), monitors
(action-only and CoT-reading logistic regression on word features, partial-read majority votes for test-time
compute, an LM judge built on any transformers causal LM, follow-up CoTs through the ``all+followup`` scope), a
simulated model organism with known ground truth and a transformers-LM agent on hinted multiple-choice arithmetic.

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``/``_checks_real.py``, judged in
``_rules.py``):
  1. ``estimator_recovers`` — the intervention estimator recovers known TPR/TNR (planted and organism truth).
  2. ``cot_beats_action`` — CoT monitors beat action-only monitors in every archetype (organism; not judged).
  3. ``longer_cot`` — longer CoTs are more monitorable (organism; not judged).
  4. ``compute_scaling`` — more monitor compute helps, more steeply with CoT access (organism; not judged).
  5. ``followup_helps`` — the follow-up CoT raises monitorability (organism; not judged).
  6. ``cot_beats_action_real`` — CoT monitors beat action-only on a real LM's hint intervention (SmolLM2-135M).

Deviations / reconstructions (the abstract and third-party digests were read; the paper's estimators and the
released evaluation code were not):
  1. The intervention estimator (``_intervention.py``) is ours: expected uncaused treated matches from the control
     arm's per-prompt match rate, TPR corrected for the false positives on them; the cross-fit filter splits each
     prompt's samples into two folds, selects prompts on one and scores the other.
  2. The organism is our construction and verbalizes by construction, so claims 2-5 cannot fail on it: they are not
     judged (``_rules.UNJUDGED``); their checks report the organism's numbers against the claims' bars as a test of
     the monitors and the harness, not of the behaviour of frontier models.
  3. Monitor test-time compute is a majority vote over partial reads of a logistic-regression monitor, not a
     reasoning monitor's effort.
  4. The real-LM claim uses a 135M-parameter instruct model as agent and as LM judge; the paper uses frontier
     reasoning models for both.
"""

from icml26.papers.monitorability._evals import (
    EvalRun,
    InterventionEval,
    PropertyEval,
    episodes_of,
    organism_eval,
    organism_tasks,
    run_eval,
)
from icml26.papers.monitorability._intervention import (
    crossfit_folds,
    intervention_bootstrap,
    intervention_g_mean2,
    intervention_table,
)
from icml26.papers.monitorability._lm import LMAgent, arithmetic_tasks
from icml26.papers.monitorability._metrics import (
    confusion_rates,
    g_mean2,
    g_mean2_bootstrap,
    g_mean2_ci,
    majority_vote_probability,
)
from icml26.papers.monitorability._monitors import BagOfWordsMonitor, LMJudgeMonitor, PartialReadMonitor, best_threshold
from icml26.papers.monitorability._organism import OrganismConfig, SimulatedAgent
from icml26.papers.monitorability._types import (
    ARCHETYPES,
    SCOPES,
    Agent,
    Episode,
    Eval,
    Monitor,
    Monitorability,
    Prompt,
    Task,
    Transcript,
    View,
    view_of,
)

__all__ = [
    "ARCHETYPES",
    "SCOPES",
    "Agent",
    "BagOfWordsMonitor",
    "Episode",
    "Eval",
    "EvalRun",
    "InterventionEval",
    "LMAgent",
    "LMJudgeMonitor",
    "Monitor",
    "Monitorability",
    "OrganismConfig",
    "PartialReadMonitor",
    "Prompt",
    "PropertyEval",
    "SimulatedAgent",
    "Task",
    "Transcript",
    "View",
    "arithmetic_tasks",
    "best_threshold",
    "confusion_rates",
    "crossfit_folds",
    "episodes_of",
    "g_mean2",
    "g_mean2_bootstrap",
    "g_mean2_ci",
    "intervention_bootstrap",
    "intervention_g_mean2",
    "intervention_table",
    "majority_vote_probability",
    "organism_eval",
    "organism_tasks",
    "run_eval",
    "view_of",
]
