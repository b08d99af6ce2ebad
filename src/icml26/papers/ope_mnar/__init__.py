"""[P36] Off-Policy Evaluation with Rewards Missing Not at Random

What it is: off-policy evaluation in a finite-horizon MDP from logged data {(S_t, A_t, η_t, η_t R_t, S_{t+1})} where the
reward is recorded (η_t = 1) with a probability that depends on the reward itself (MNAR), so complete cases are a
biased sample even given (S_t, A_t). The next state Z = S_{t+1} is a shadow variable: it is associated with R_t and
Z ⊥ η_t | (S_t, A_t, R_t). Equations used in this package (our numbering; the paper's text was not available):

  (B1) bridge:  E{b_t(S_t, A_t, S_{t+1}) | R_t, S_t, A_t} = R_t   ⇒   E[R_t | S_t, A_t] = E[b_t(S_t, A_t, S_{t+1}) | S_t, A_t].
  (B2) min-max fit on complete cases: min_b max_f E_n[η (R − b) f − ½ f²]; with linear sieves b = φᵀβ, f = ψᵀθ
       (φ = [w(S), x(S')], ψ = [w(S), u(R)]) it is ridge two-stage least squares (:func:`fit_bridge`).
  (B3) FQE backward over t = T..1 with target y = b̂_t(S, A, S') + V_{t+1}(S', η_t), Q_t regressed on S_t in each
       cell (A_t, η_{t-1}); V_t(s, h) = Σ_a π_t(a | s, h) Q_t(s, a, h): the target policy may react to missingness.
  (B4) shadow relevance diagnostic: partial F of x(S') in the regression of R on [w(S), x(S')] (complete cases); the
       bridge exists only if S' carries information on R given (S, A). The estimator refuses below F = 10.

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``): ``consistency``
(the bridge's bias against complete case, its RMSE rate over n), ``mar_biased`` (MAR methods stay biased under MNAR,
with an MCAR control), ``missingness_policy`` (policies reacting to η_{t-1}), ``identification`` (relevant shadow:
identified; irrelevant: the estimator says so).

Deviations / reconstructions (only the abstract and a summary were available; no code):
  1. Equations (B1)-(B4) and the simulator are reconstructions (notes P36); the paper's RKHS / neural min-max is
     replaced by its linear-sieve special case (2SLS); the MIMIC-III Sepsis study is out of scope (no data here).
  2. The relevance diagnostic (B4) and its threshold (10, the weak-instrument rule of thumb) are ours.
  3. Target policies may depend on the last indicator η_{t-1} only (the notes' form), not the whole history.
  4. Complete-case FQE fits the reward model on complete cases and plugs it into FQE over all transitions; MAR-IPW
     weights η R by a logistic p̂(S, A). Both are consistent under MAR given (S, A). The notes' MNAR-IPW with a known
     propensity family is not implemented.
  5. Simulator constants differ from the notes (which let the states blow up over T = 3): σ_R = 1, P(η=1|r) =
     expit(1 − 1.5 r) (≈ 42% missing), S' = 0.5 S + 0.3 a + 0.8 R e₁ + 0.5 ν. ``estimate_interval`` (trajectory
     bootstrap, seeded by ``random_state``) is our addition.
"""

from icml26.papers.ope_mnar._bridge import BridgeFit, fit_bridge, shadow_relevance
from icml26.papers.ope_mnar._data import LogisticPolicy, TargetPolicy, Trajectories, basis, policy_probs
from icml26.papers.ope_mnar._fqe import (
    MARIPWFQE,
    CompleteCaseFQE,
    IdentificationError,
    IdentificationWarning,
    OracleFQE,
    ShadowBridgeFQE,
    ZeroImputationFQE,
    fitted_q_evaluation,
)
from icml26.papers.ope_mnar._simulator import MNARSimulator

__all__ = [
    "BridgeFit",
    "CompleteCaseFQE",
    "IdentificationError",
    "IdentificationWarning",
    "LogisticPolicy",
    "MARIPWFQE",
    "MNARSimulator",
    "OracleFQE",
    "ShadowBridgeFQE",
    "TargetPolicy",
    "Trajectories",
    "ZeroImputationFQE",
    "basis",
    "fit_bridge",
    "fitted_q_evaluation",
    "policy_probs",
    "shadow_relevance",
]
