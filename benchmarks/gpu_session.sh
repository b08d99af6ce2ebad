#!/usr/bin/env bash
# One prepared GPU session for a paper's GPU claims (the device tool runs one such command per session):
#   bash benchmarks/gpu_session.sh <slug> <claim> [<claim> ...]
# env: OUT (results folder, default /tmp/<slug>-gpu), PYTHON (default python3), TESTS_K (a pytest -k filter).
# Steps, each logged to $OUT/log.txt, results flat in $OUT (the device tool brings back a few files):
#   0. the machine (GPU, torch, triton); 1. an editable install (the pure-Python one when the native build fails);
#   2. the paper's tests, now with a GPU; 3. benchmarks/<slug>/gpu_check.py -> $OUT/gpu_check.md;
#   4. the named claims at the `full` budget -> $OUT/results.jsonl and $OUT/verdicts.txt.
# The exit status is gpu_check's.
set -uo pipefail
SLUG=${1:?usage: gpu_session.sh <slug> <claim>...}; shift
OUT=${OUT:-/tmp/$SLUG-gpu}
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
cd "$(dirname "$0")/.."

echo "== 0. machine"; nvidia-smi -L || true; "$PY" -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())"
echo "== 1. install"
if ! "$PY" -m pip install -q --no-deps --no-build-isolation -e . ; then
  echo "native build failed: pure Python install (the GPU paths need no C++ kernel)"
  ICML26_NO_EXT=1 "$PY" -m pip install -q --no-deps --no-build-isolation -e . || exit 1
fi
echo "== 2. tests"
"$PY" -m pytest -q -p no:cacheprovider "tests/papers/$SLUG" ${TESTS_K:+-k "$TESTS_K"} 2>&1 | tail -5
echo "== 3. gpu_check"
"$PY" "benchmarks/$SLUG/gpu_check.py" | tee "$OUT/gpu_check.md"; check=${PIPESTATUS[0]}
echo "== 4. claims at full"
rm -rf "/tmp/$SLUG-run"
claims=(); for c in "$@"; do claims+=("$SLUG:$c"); done
ICML26_CACHE_DIR="/tmp/$SLUG-cache" "$PY" -m icml26.cli reproduce "${claims[@]}" --budget full --executor serial \
  --out "/tmp/$SLUG-run"
cp "/tmp/$SLUG-run/results.jsonl" "$OUT/results.jsonl" 2>/dev/null
"$PY" - "$OUT/results.jsonl" > "$OUT/verdicts.txt" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(r.get("claim"), r.get("verdict"), "|", r.get("reason"))
PYEOF
cat "$OUT/verdicts.txt"
exit "$check"
