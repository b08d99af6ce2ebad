"""Code lengths and unintended memorisation of [P01]: closed forms, brute-force oracles, bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.capacity import (
    MarkovChain,
    UniformReference,
    code_lengths,
    make_model,
    memorization_bits,
    unintended_memorization,
)


def _uniform_model(V: int, S: int):
    m = make_model(1, 4, vocab_size=V, seq_len=S, seed=0)
    with torch.no_grad():
        m.wte.weight.zero_()  # tied head: every logit is 0 -> the uniform distribution over the V data tokens
    return m


def _all_sequences(V: int, S: int) -> np.ndarray:
    return np.array(list(itertools.product(range(V), repeat=S)), dtype=np.int64)


def test_uniform_model_codes_exactly_S_log2_V_bits():
    V, S = 16, 8
    x = np.random.default_rng(0).integers(0, V, size=(50, S))
    bits = code_lengths(_uniform_model(V, S), x)
    np.testing.assert_allclose(bits, S * math.log2(V), rtol=0, atol=1e-12)
    np.testing.assert_allclose(UniformReference(V).code_lengths(x), S * math.log2(V), rtol=0, atol=0)
    assert memorization_bits(_uniform_model(V, S), x, UniformReference(V)) == pytest.approx(0.0, abs=1e-9)


def test_model_code_lengths_match_a_prefix_by_prefix_brute_force():
    """Oracle: run the model on each prefix (BOS, x_<t) separately; the batched causal pass must agree."""
    V, S = 3, 3
    m = make_model(1, 8, vocab_size=V, seq_len=S, seed=3).double()
    with torch.no_grad():  # larger weights than the init, so the distribution is far from uniform
        for p in m.parameters():
            p.mul_(8.0)
    xs = _all_sequences(V, S)
    brute = []
    with torch.no_grad():
        for x in xs:
            bits = 0.0
            for t in range(S):
                inp = torch.tensor([[V] + list(x[:t])])
                logp = torch.log_softmax(m(inp)[0, -1, :V].double(), -1)
                bits -= float(logp[x[t]]) / math.log(2)
            brute.append(bits)
    got = code_lengths(m, xs)
    np.testing.assert_allclose(got, brute, rtol=1e-10)
    assert np.ptp(got) > 1.0  # not a near-uniform model: the test has teeth
    # a code over all V^S sequences of length S is complete: Σ 2^-H = 1 (Kraft equality)
    assert np.exp2(-got).sum() == pytest.approx(1.0, abs=1e-9)


def test_markov_code_lengths_and_entropy_against_enumeration():
    chain = MarkovChain.random(3, concentration=0.5, seed=1)
    S = 4
    xs = _all_sequences(3, S)
    bits = chain.code_lengths(xs)
    p = np.array([chain.initial[x[0]] * np.prod([chain.transition[a, b] for a, b in zip(x[:-1], x[1:])]) for x in xs])
    np.testing.assert_allclose(bits, -np.log2(p), rtol=1e-12)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    assert chain.expected_code_length(S) == pytest.approx(float((p * -np.log2(p)).sum()), rel=1e-10)
    # started from the stationary law, E[H] = H(π) + (S-1)·entropy rate
    h_pi = float(-(chain.initial * np.log2(chain.initial)).sum())
    assert chain.expected_code_length(S) == pytest.approx(h_pi + (S - 1) * chain.entropy_rate(), rel=1e-10)


def test_markov_samples_follow_the_chain():
    chain = MarkovChain.random(4, concentration=1.0, seed=2)
    x = chain.sample(20000, 2, seed=5)
    counts = np.zeros((4, 4))
    np.add.at(counts, (x[:, 0], x[:, 1]), 1)
    np.testing.assert_allclose(counts / counts.sum(1, keepdims=True), chain.transition, atol=0.03)
    np.testing.assert_allclose(np.bincount(x[:, 0], minlength=4) / 20000, chain.initial, atol=0.02)


@settings(max_examples=25, deadline=None)
@given(V=st.integers(2, 6), S=st.integers(1, 5), seed=st.integers(0, 10_000))
def test_memorization_is_the_positive_part_of_the_code_length_gap(V, S, seed):
    """mem_U(x) = max(0, H(x|θ) − H(x|θ̂)): with θ̂ uniform and θ a Markov chain it is max(0, H_markov − S log2 V)."""
    chain = MarkovChain.random(V, concentration=0.3, seed=seed)
    x = chain.sample(20, S, seed=seed + 1)
    mem = unintended_memorization(_uniform_model(V, S), x, chain)
    np.testing.assert_allclose(mem, np.maximum(0.0, chain.code_lengths(x) - S * math.log2(V)), atol=1e-9)
    assert np.all(mem >= 0)


def test_memorization_against_itself_is_zero_and_bounded_by_the_reference():
    V, S = 8, 6
    m = make_model(1, 8, vocab_size=V, seq_len=S, seed=0)
    x = np.random.default_rng(0).integers(0, V, size=(30, S))
    assert memorization_bits(m, x, m) == 0.0
    mem = unintended_memorization(m, x, UniformReference(V))
    assert np.all(mem <= S * math.log2(V)) and np.all(mem >= 0)


def test_bad_input_is_rejected_clearly():
    V, S = 8, 6
    m = make_model(1, 8, vocab_size=V, seq_len=S, seed=0)
    x = np.zeros((3, S), dtype=np.int64)
    with pytest.raises(ValueError, match="vocab"):
        memorization_bits(m, x, UniformReference(16))
    with pytest.raises(ValueError, match="block_size"):
        code_lengths(m, np.zeros((3, S + 1), dtype=np.int64))
    with pytest.raises(ValueError, match="dataset token ids"):
        code_lengths(m, np.full((3, S), V))  # V is the BOS id, not a data token
    with pytest.raises(TypeError, match="dataset must hold integer"):
        code_lengths(m, np.zeros((3, S)))
    with pytest.raises(ValueError, match="2-dimensional"):
        code_lengths(m, np.zeros(S, dtype=np.int64))
    with pytest.raises(TypeError, match="model must be a TinyGPT"):
        code_lengths(torch.nn.Linear(2, 2), x)
    with torch.no_grad():
        m.wpe.weight[0, 0] = float("nan")
    with pytest.raises(ValueError, match="non-finite weights"):
        memorization_bits(m, x, UniformReference(V))
    with pytest.raises(ValueError, match="vocab_size"):
        UniformReference(1)
    with pytest.raises(ValueError, match="transition"):
        MarkovChain(np.array([0.5, 0.5]), np.array([[0.5, 0.6], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="initial"):
        MarkovChain(np.array([1.0]), np.eye(2))
    with pytest.raises(ValueError, match="concentration"):
        MarkovChain.random(4, concentration=0.0, seed=0)
