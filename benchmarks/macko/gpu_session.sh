#!/usr/bin/env bash
# The prepared GPU session for P05 (MACKO): the cuda branch of its tests, gpu_check.py (the Triton kernel against the
# reference on awkward shapes, then timings against cuBLAS fp16 and cuSPARSE at 4096^2/8192^2 and 30-90 % sparsity),
# and its GPU claims (with the e2e memory claim that shares their decoder) at `full`. See ../gpu_session.sh.
#   device run:  bash benchmarks/macko/gpu_session.sh        (timeout_s=540; about 5-7 min on an H200)
#   elsewhere:   OUT=/tmp/macko-gpu PYTHON=.venv/bin/python bash benchmarks/macko/gpu_session.sh
exec bash "$(dirname "$0")/../gpu_session.sh" macko spmv_speedup_50 e2e_memory e2e_speed
