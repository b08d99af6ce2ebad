"""The Triton SpMV kernel of [P05] compiled for real GPUs (sm_80, sm_89, sm_90) on a machine without one.

The interpreter tests check the kernel's arithmetic; this checks what only a compiler sees: that the kernel lowers to
a cubin for the A100, the paper's RTX 4090 and the H100/H200 for every dtype the class accepts, that no registers
spill to local memory, and that each lane reads its 8 fp16 values as one 16-byte load, as in the paper's kernel.
It runs in a subprocess so that triton's cache goes to a temporary folder (TRITON_CACHE_DIR), not ``~/.triton``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("triton")

JOB = Path(__file__).with_name("_triton_compile_job.py")


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    tmp = tmp_path_factory.mktemp("triton")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env |= {"TRITON_CACHE_DIR": str(tmp / "cache"), "TRITON_HOME": str(tmp), "TRITON_DEFAULT_FP_FUSION": "1"}
    out = subprocess.run([sys.executable, str(JOB)], env=env, capture_output=True, text=True, timeout=300,
                         check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])["builds"]


def test_kernel_compiles_to_a_cubin_for_each_gpu_generation(builds: list[dict]) -> None:
    assert {b["target"] for b in builds} == {"sm_80", "sm_89", "sm_90a"}
    assert all(b["cubin_elf"] and b["cubin_bytes"] > 1000 for b in builds)
    assert {(b["x"], b["y"]) for b in builds} >= {("fp16", "fp16"), ("bf16", "fp32"), ("fp32", "fp32")}


def test_no_register_spills(builds: list[dict]) -> None:
    assert not [b for b in builds if b["spills"]]


def test_default_launch_reads_8_values_per_lane_in_one_16_byte_load(builds: list[dict]) -> None:
    default = [b for b in builds if (b["block"], b["num_warps"]) == (256, 1)]
    assert len(default) == 6
    # ld.global.v4.b32: the 8 fp16 values of a lane; the 8 nibbles are one 32-bit word, so no byte loads (the first
    # version loaded each entry's byte); b32 also covers the row pointers, b16 the fp16 x gather
    assert all("ld.global.v4.b32" in b["loads"] for b in default)
    assert not [b for b in builds if any(ld.endswith((".b8", ".u8", ".s8")) for ld in b["loads"])]
    fp32_x = [b for b in default if b["x"] == "fp32"]
    assert fp32_x and all("ld.global.b16" not in b["loads"] for b in fp32_x)  # fp32 x is gathered as 32-bit words
