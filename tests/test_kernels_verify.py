"""`kernlint verify` on the bundled reference-fix library."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import AWAITING_GPU_MEASUREMENT
from kernlint.kernels import PAIRS, pair_meta
from kernlint.kernels.verify import verify_command

KERNELS = Path(pair_meta(PAIRS[0]).__file__).resolve().parents[1]
# Pairs on the seed's int8 problem (their reference is int8_problem's); the
# others bring their own problem, `truth` and shapes.
INT8_PAIRS = [p for p in PAIRS if "kernlint.kernels.int8_problem" in (KERNELS / p / "reference.py").read_text()]


def _one_line_error(result):
    text = (result.stderr if hasattr(result, "stderr") else result.output).strip()
    assert "Traceback" not in result.output
    assert len(text.splitlines()) == 1, text
    return text


def test_without_gpu_or_interpret_exits_2_with_one_line():
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is present")
    result = CliRunner().invoke(verify_command, [])
    assert result.exit_code == 2
    assert "--interpret" in _one_line_error(result)


def test_without_torch_exits_2_naming_the_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name in ("torch", "triton") else real(name, *a)
    )
    result = CliRunner().invoke(verify_command, ["--interpret"])
    assert result.exit_code == 2
    assert "pip install 'kernlint[kernels]'" in _one_line_error(result)


def test_unknown_pair_or_shape_is_a_usage_error():
    result = CliRunner().invoke(verify_command, ["--pair", "nope", "--interpret"])
    assert result.exit_code == 2 and "unknown pair" in _one_line_error(result)


def test_interpret_checks_every_pair(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    record = tmp_path / "interp.json"
    env = {**os.environ, "TRITON_INTERPRET": "0"}
    proc = subprocess.run(
        [sys.executable, "-m", "kernlint.kernels.verify", "--interpret", "--trials", "2", "--record", str(record)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "correctness only: no timing was taken under --interpret" in proc.stdout
    data = json.loads(record.read_text())
    pytest.importorskip("jsonschema")
    from kernlint.kernels.verify import validate_record

    validate_record(data)
    assert data["environment"]["interpret"] is True
    assert {r["pair"] for r in data["results"]} == set(PAIRS)
    for r in data["results"]:
        assert r["ok"] and r["speedup"] is None and r["after"]["graph_us"] is None
        assert r["before"]["rel_err"] < 2e-3 and r["after"]["rel_err"] < 2e-3


def test_poisoned_outputs_catch_unwritten_elements():
    torch = pytest.importorskip("torch")
    from types import SimpleNamespace

    from kernlint.kernels.seed_all_fixes import reference as ref
    from kernlint.kernels.verify import _check

    class Partial(ref.Model):
        """Writes every output element but the last row (into a torch.empty buffer)."""

        def forward(self, x, scale_x):
            full = super().forward(x, scale_x)
            out = torch.empty(full.shape, dtype=full.dtype)
            out[:-1] = full[:-1]
            return out

    good = SimpleNamespace(ModelNew=ref.Model)
    bad = SimpleNamespace(ModelNew=Partial)
    dims = ref.INTERPRET_SHAPES["ragged"]
    errs, ok, _ = _check(torch, ref, good, bad, dims, "cpu", 1, 2e-3, 0)
    assert ok["before"] and ok["reference"]
    assert not ok["after"] and errs["after"] == float("inf")


def test_the_shared_int8_gemm_keeps_the_lint_contract_in_its_source():
    """A textual smoke check; the linter's own test lints these files for real."""
    src = (KERNELS / "_int8_gemm.py").read_text()
    assert "@triton.autotune(" in src and 'key=["M", "N", "K", "stride_bk"]' in src
    assert "allow_tf32" not in src
    assert ".contiguous()" not in src and ".float()" not in src
    loop = src.split("acc = tl.zeros")[1].split("dequant_bias_store(")[0]
    assert "tl.int32" in src and "float32" not in loop


# The pairs whose fix is to the int8 GEMM itself run the library's shared one.
GEMM_FIX_PAIRS = [p for p in INT8_PAIRS if set(pair_meta(p).RULES) <= {"KL001", "KL002", "KL003", "KL016"}]


@pytest.mark.parametrize("pair", GEMM_FIX_PAIRS)
def test_after_kernels_run_the_shared_int8_gemm(pair):
    src = (KERNELS / pair / "after.py").read_text()
    assert "Int8MatmulDequant(int8_matmul_dequant_kernel)" in src
    assert "@triton.jit" not in src


@pytest.mark.parametrize("pair", INT8_PAIRS)
def test_reference_shapes(pair):
    assert "from kernlint.kernels.int8_problem import" in (KERNELS / pair / "reference.py").read_text()
    src = (KERNELS / "int8_problem.py").read_text()
    for name, dims in (
        ("seed", '128, "K": 2048, "N": 2048'),
        ("decode", '16, "K": 4096, "N": 4096'),
        ("large", '4096, "K": 4096, "N": 4096'),
    ):
        assert re.search(rf'"{name}": {{"M": {dims}}}', src), name


def test_render_markdown_and_png(tmp_path):
    from kernlint.kernels.render import render_markdown

    path = KERNELS / "measurements" / "h100.json"
    record = json.loads(path.read_text())
    md = render_markdown(record)
    for pair in PAIRS:
        assert (pair in md) != (pair in AWAITING_GPU_MEASUREMENT.values()), pair
    pytest.importorskip("matplotlib")
    from kernlint.kernels.render import render_png

    render_png(record, str(tmp_path / "chart.png"))
    assert (tmp_path / "chart.png").stat().st_size > 10_000


def test_gpu_quick_run(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    record = tmp_path / "gpu.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kernlint.kernels.verify",
            "--pair",
            "seed_all_fixes",
            "--shape",
            "seed",
            "--trials",
            "1",
            "--record",
            str(record),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(record.read_text())
    assert data["results"][0]["speedup"]["graph"] > 1
