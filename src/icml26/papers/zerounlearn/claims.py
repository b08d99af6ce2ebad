"""The [P27] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``).

All three claims read one edit experiment (group ``edits``): at ``small`` SmolLM2-135M-Instruct with 20 forgotten
facts per seed; at ``smoke`` the tiny Llama of :mod:`._tiny` trained in seconds; at ``full`` the same protocol with
50 forgotten facts and more retain text (a user with Llama-3.2-3B runs :func:`zero_unlearn` on it unchanged).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from icml26.claims import Budget, Claim
from icml26.papers.zerounlearn._checks import check_ga, check_projector, check_unlearning
from icml26.papers.zerounlearn._experiment import EditConfig
from icml26.papers.zerounlearn._tiny import TinySpec

#: smoke: a 4-layer tiny Llama (width 64) trained here on 12 made-up facts; 3 forgotten, edits of layers 1-2
SMOKE = EditConfig(model="tiny", tiny=TinySpec(subjects=12, unknown=4, layers=4, steps=60, lr=6e-3), layers=(1, 2),
                   forget=3, other=7, retain_facts=2, contexts=("{}", "Here is a fact. {}"), retain_passages=32, heldout_passages=8,
                   passage_length=16, z_lr=1.0, ga_max_steps=20, methods=("zerounlearn", "zerounlearn_no_op", "ga"))
#: small: SmolLM2-135M-Instruct, layers 18-19 of 30, 20 forgotten facts and 200 specificity facts per seed, 100
#: retain-pool facts as sentences in the retain text, one context template, 12 steps per value search; all baselines
SMALL = EditConfig()
#: full: the paper's forget-set size, search steps and context templates, every baseline, more retain text
FULL = EditConfig(layers=(16, 17, 18), forget=50, contexts=("{}", "Here is a fact. {}"), z_steps=25, z_lr=0.1,
                  retain_passages=2000, heldout_passages=200, ga_max_steps=200,
                  methods=("zerounlearn", "zerounlearn_no_op", "memit", "alphaedit", "ft", "ga"))


@dataclass(frozen=True)
class ClaimConfig:
    edit: EditConfig = field(default_factory=EditConfig)


BUDGETS = {
    "smoke": Budget(ClaimConfig(SMOKE), seeds=1, expected_s=8),
    # the first claim run computes the shared rows (248 s wall on 2 idle cores, seeds on two workers); the others read them
    "small": Budget(ClaimConfig(SMALL), seeds=3, expected_s=300, requires=("models",)),
    "full": Budget(ClaimConfig(FULL), seeds=10, expected_s=4000, requires=("models",)),
}

CLAIMS = [
    Claim("targeted_unlearning", check=check_unlearning, budgets=BUDGETS),
    Claim("gradient_ascent_cost", check=check_ga, budgets=BUDGETS),
    Claim("projector_matters", check=check_projector, budgets=BUDGETS),
]
