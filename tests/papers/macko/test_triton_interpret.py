"""The Triton SpMV kernel of [P05], run by Triton's interpreter on the CPU (no GPU): against the numpy reference.

The interpreter must be on before triton is imported, so the work runs once in a subprocess
(``_triton_interpret_job.py``) and the tests below check what it printed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("triton")

JOB = Path(__file__).with_name("_triton_interpret_job.py")


@pytest.fixture(scope="module")
def job() -> dict:
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    out = subprocess.run([sys.executable, str(JOB)], env=env, capture_output=True, text=True, timeout=300,
                         check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_kernel_matches_reference_on_every_structured_case(job: dict) -> None:
    cases = job["spmv"]
    assert len(cases) == 27  # 9 matrices x (batch, block, dtype) triples
    bad = [c for c in cases if not c["ok"]]
    assert not bad, bad
    assert {c["block"] for c in cases} == {16, 64} and {c["batch"] for c in cases} == {1, 2, 3}
    assert any(c["shape"][0] == 0 and c["out_shape"][1] == 0 for c in cases)  # a 0-row matrix gives (B, 0)


def test_nan_weight_reaches_only_its_row(job: dict) -> None:
    nan_cases = [c for c in job["spmv"] if c["case"] == 7]
    assert nan_cases and all(c["nan_rows"] == 1 for c in nan_cases)


def test_triton_linear_matches_torch_fp16_linear(job: dict) -> None:
    lin = job["linear"]
    assert lin["dtype"] == "torch.float16" and lin["shape"] == [2, 5, 24]
    assert lin["rel_err"] < 2e-3  # one fp16 rounding of the fp32 sum each side
    assert lin["bytes"] == lin["cpu_bytes"]


def test_e2e_gpu_path_agrees_with_the_cpu_path(job: dict) -> None:
    e2e = job["e2e"]
    assert e2e["device"] == "triton-interpret"
    assert e2e["models"] == ["dense16", "macko"]
    assert e2e["agreement"] == 1.0  # greedy tokens of the Triton MACKO model = those of the pruned dense fp16 model
    assert e2e["macko_bytes"][0] == e2e["macko_bytes"][1] and e2e["dense16_bytes"][0] == e2e["dense16_bytes"][1]
    assert e2e["macko_bytes"][0] < e2e["dense16_bytes"][0]


def test_gpu_speed_check_runs_end_to_end(job: dict) -> None:
    sp = job["speed"]
    assert sp["verdict"] in ("holds", "fails", "inconclusive")  # wall-clock on the interpreter: not a finding
    assert {"macko", "cublas_fp16"} <= set(sp["kernels"])
    assert sp["rel_err"] < 1e-5  # fp32 output of the Triton kernel vs the fp32 dense product


def test_interpret_without_the_environment_switch_is_a_clear_error(monkeypatch) -> None:
    from icml26.papers.macko import MackoMatrix
    from icml26.papers.macko._triton import TritonMacko

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    A = MackoMatrix.from_dense(np.eye(4, dtype=np.float16))
    with pytest.raises(RuntimeError, match="TRITON_INTERPRET=1"):
        TritonMacko(A, interpret=True)
    with pytest.raises(ValueError, match="block must be"):
        TritonMacko(A, block=24, interpret=True)
