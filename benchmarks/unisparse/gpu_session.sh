#!/usr/bin/env bash
# The prepared GPU session for P30 (UniSparse): everything its GPU claim needs from a GPU, in one command.
#
#   device run:  bash benchmarks/unisparse/gpu_session.sh      (timeout_s=540; about 4-6 min on an H200)
#   elsewhere:   OUT=/tmp/unisparse-gpu PYTHON=.venv/bin/python bash benchmarks/unisparse/gpu_session.sh
#
# Steps, each logged to $OUT/log.txt, results to $OUT (flat, a few files):
#   1. install the package into the machine's Python without dependencies (torch, triton, numpy are there);
#   2. the unisparse tests (the Triton interpreter test included);
#   3. gpu_check.py: the Triton kernel against the reference, then timings against FlashAttention (SDPA) -> gpu_check.md;
#   4. the GPU claim gpu_speedup at the `full` budget -> results.jsonl and verdicts.txt.
set -uo pipefail
OUT=${OUT:-/tmp/unisparse-gpu}
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
"$PY" -m pytest -q -p no:cacheprovider tests/papers/unisparse -k "not mqar" 2>&1 | tail -5
echo "== 3. gpu_check"
"$PY" benchmarks/unisparse/gpu_check.py | tee "$OUT/gpu_check.md"; check=${PIPESTATUS[0]}
echo "== 4. claim at full"
rm -rf /tmp/unisparse-run
"$PY" -m icml26.cli reproduce unisparse:gpu_speedup --budget full --executor serial --out /tmp/unisparse-run
cp /tmp/unisparse-run/results.jsonl "$OUT/results.jsonl" 2>/dev/null
"$PY" - "$OUT/results.jsonl" > "$OUT/verdicts.txt" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(r.get("claim"), r.get("verdict"), "|", r.get("reason"))
PYEOF
cat "$OUT/verdicts.txt"
exit "$check"
