#!/usr/bin/env bash
# The prepared GPU session for P05 (MACKO): everything its GPU claims need from a GPU, in one command.
#
#   device run:  bash benchmarks/macko/gpu_session.sh        (timeout_s=540; about 5-7 min on an H200)
#   elsewhere:   OUT=/tmp/macko-gpu PYTHON=.venv/bin/python bash benchmarks/macko/gpu_session.sh
#
# Steps, each logged to $OUT/log.txt, results to $OUT (flat: the device tool brings back 8 files at most):
#   1. install the package into the machine's Python without dependencies (torch, triton, numpy are there);
#   2. the macko tests, now with a GPU: the cuda branch of test_kernels and the interpreter tests;
#   3. gpu_check.py: the Triton kernel against the reference on awkward shapes, then timings against cuBLAS fp16
#      and cuSPARSE at 4096^2/8192^2 and 30-90 % sparsity -> $OUT/gpu_check.md;
#   4. the GPU claims (and the e2e memory claim that shares their decoder) at the `full` budget -> $OUT/results.jsonl and $OUT/verdicts.txt.
set -uo pipefail
OUT=${OUT:-/tmp/macko-gpu}
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
cd "$(dirname "$0")/../.."

echo "== 0. machine"; nvidia-smi -L || true; "$PY" -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())"
echo "== 1. install"
if ! "$PY" -m pip install -q --no-deps --no-build-isolation -e . ; then
  echo "native build failed: pure Python install (the GPU path needs no C++ kernel)"
  ICML26_NO_EXT=1 "$PY" -m pip install -q --no-deps --no-build-isolation -e . || exit 1
fi
echo "== 2. tests"
"$PY" -m pytest -q -p no:cacheprovider tests/papers/macko 2>&1 | tail -5
echo "== 3. gpu_check"
"$PY" benchmarks/macko/gpu_check.py | tee "$OUT/gpu_check.md"; check=${PIPESTATUS[0]}
echo "== 4. claims at full"
rm -rf /tmp/macko-run
ICML26_CACHE_DIR=/tmp/macko-cache "$PY" -m icml26.cli reproduce macko:spmv_speedup_50 macko:e2e_memory macko:e2e_speed \
  --budget full --executor serial --out /tmp/macko-run
cp /tmp/macko-run/results.jsonl "$OUT/results.jsonl" 2>/dev/null
"$PY" - "$OUT/results.jsonl" > "$OUT/verdicts.txt" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(r.get("claim"), r.get("verdict"), "|", r.get("reason"))
PYEOF
cat "$OUT/verdicts.txt"
exit "$check"
