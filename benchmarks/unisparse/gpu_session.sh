#!/usr/bin/env bash
# The prepared GPU session for P30 (UniSparse): its tests (the Triton interpreter test included), gpu_check.py (the
# Triton kernel against the reference, then timings against FlashAttention via SDPA) and the GPU claim gpu_speedup at
# `full`. See ../gpu_session.sh.
#   device run:  bash benchmarks/unisparse/gpu_session.sh      (timeout_s=540; about 4-6 min on an H200)
#   elsewhere:   OUT=/tmp/unisparse-gpu PYTHON=.venv/bin/python bash benchmarks/unisparse/gpu_session.sh
TESTS_K="not mqar" exec bash "$(dirname "$0")/../gpu_session.sh" unisparse gpu_speedup
