"""Claim checks of inc_bpe: the speed verdict rule on planted numbers, and no environment change at import."""

import os
import subprocess
import sys

import pytest

from icml26.claims import Verdict
from icml26.papers.inc_bpe import claims

FAST = {"words": 3.4, "pure": 20.0, "pipeline": 28.0}


def test_speed_rule_holds_only_when_every_comparison_meets_the_bar():
    assert claims.speed_verdict(FAST, True, 3.0) is Verdict.HOLDS
    # a fast pipeline (a faster splitter) does not carry a BPE-vs-BPE comparison below the bar
    assert claims.speed_verdict({**FAST, "words": 2.9}, True, 3.0) is Verdict.FAILS
    assert claims.speed_verdict({**FAST, "pure": 1.0}, True, 3.0) is Verdict.FAILS
    assert claims.speed_verdict({**FAST, "pipeline": 2.0}, True, 3.0) is Verdict.FAILS
    assert claims.speed_verdict(FAST, False, 3.0) is Verdict.FAILS  # outputs differ: not a drop-in
    assert claims.speed_verdict(FAST, True, 3.0, decide=False) is Verdict.INCONCLUSIVE
    with pytest.raises(KeyError):
        claims.speed_verdict({"pipeline": 28.0}, True, 3.0)  # every comparison must be measured


def test_one_thread_sets_and_restores_the_environment(monkeypatch):
    monkeypatch.delenv("RAYON_NUM_THREADS", raising=False)
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "true")
    with claims._one_thread():
        assert os.environ["RAYON_NUM_THREADS"] == "1"
        assert os.environ["TOKENIZERS_PARALLELISM"] == "true"  # the caller's setting wins
    assert "RAYON_NUM_THREADS" not in os.environ and os.environ["TOKENIZERS_PARALLELISM"] == "true"


def test_import_leaves_the_environment_alone():
    env = {k: v for k, v in os.environ.items() if k not in claims._ONE_THREAD}
    code = "import os, icml26.papers.inc_bpe.claims; print([k for k in ('RAYON_NUM_THREADS', 'TOKENIZERS_PARALLELISM') if k in os.environ])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
