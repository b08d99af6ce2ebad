"""The Triton kernel of [P30], run by Triton's interpreter on the CPU (no GPU), against the torch reference.

The interpreter must be on before triton is imported, so the work runs once in a subprocess
(``_triton_interpret_job.py``) and the tests below check what it printed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

pytest.importorskip("triton")

JOB = Path(__file__).with_name("_triton_interpret_job.py")


@pytest.fixture(scope="module")
def job() -> dict:
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    out = subprocess.run([sys.executable, str(JOB)], env=env, capture_output=True, text=True, timeout=600,
                         check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_kernel_matches_the_reference(job: dict) -> None:
    cases = job["cases"]
    assert len(cases) == 4 and any(c["density"] == 1.0 for c in cases)
    for c in cases:
        tol = 2e-2 if "float16" in c["dtype"] else 1e-5  # fp16 inputs: P is rounded to fp16 before P V
        assert c["max_err"] < tol, c
        assert c["out_shape"] == [c["shape"][0], c["shape"][2], c["shape"][3]]


def test_patched_model_on_the_triton_backend(job: dict) -> None:
    assert job["model"]["max_err"] < 1e-4


def test_triton_refuses_cpu_tensors_without_the_interpreter(monkeypatch) -> None:
    from icml26.papers.unisparse import BlockMask
    from icml26.papers.unisparse._triton import triton_attention

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    q = torch.zeros(1, 32, 16)
    with pytest.raises(RuntimeError, match="TRITON_INTERPRET=1"):
        triton_attention(q, q, q, BlockMask.full(1, 32, block=16), scale=1.0)
