"""The seed's files, as given: exact findings, schema-valid output, verdict."""

from __future__ import annotations

import json

from conftest import FIXTURES, run_kernlint
from kernlint import claims, schemas
from kernlint.engine import lint_source
from kernlint.runner import run

KERNEL = FIXTURES / "seed" / "kernel.py"
REFERENCE = FIXTURES / "seed" / "reference.py"
FIXED = FIXTURES / "seed" / "kernel_fixed.py"


def findings(path):
    result = lint_source(str(path), path.read_text())
    return [(f.code, f.span.line, f.span.column) for f in result.findings], result.findings


def test_seed_kernel_reports_each_problem_at_its_place() -> None:
    places, _ = findings(KERNEL)
    assert places == [
        ("KL009", 23, 13),  # pid_m = tl.program_id(0): row-major tiles, no GROUP_M (info)
        ("KL001", 54, 16),  # tl.dot(a_f32, b_f32, ...) on fp32 upcasts of int8 loads
        ("KL014", 54, 37),  # allow_tf32=True
        ("KL002", 112, 9),  # weight_int8.t().contiguous() on every call
        ("KL003", 122, 5),  # int8_matmul_rowwise_dequant_kernel[grid](... BLOCK_M=64 ...)
    ]


def test_seed_kl001_names_int8_and_the_tensors_with_high_confidence() -> None:
    _, found = findings(KERNEL)
    kl001 = next(f for f in found if f.code == "KL001")
    assert "int8" in kl001.message
    for name in ("a_f32", "b_f32", "x", "weight_int8"):
        assert name in kl001.message, name
    assert kl001.confidence == "high"
    assert kl001.kernel == "int8_matmul_rowwise_dequant_kernel"


def test_seed_kl002_knows_the_weight_is_a_parameter() -> None:
    _, found = findings(KERNEL)
    kl002 = next(f for f in found if f.code == "KL002")
    assert kl002.severity.value == "warning"
    assert "weight_int8" in kl002.message
    assert kl002.kernel == "fused_int8_rowwise_dequant_matmul"


def test_seed_reference_reports_upcast_before_torch_matmul() -> None:
    places, _ = findings(REFERENCE)
    # KL004: the fp32 matmul's scale, bias and cast run as separate torch ops.
    assert places == [("KL004", 61, 24), ("KL016", 61, 24)]


def test_hand_fixed_kernel_is_clean() -> None:
    places, _ = findings(FIXED)
    assert places == []


def test_json_output_is_schema_valid_and_complete() -> None:
    proc = run_kernlint("--format", "json", str(KERNEL), str(REFERENCE), str(FIXED))
    assert proc.returncode == 1, proc.stderr
    document = json.loads(proc.stdout)
    schemas.validate("json", document)
    assert document["files_checked"] == 3
    assert [f["code"] for f in document["findings"]] == [
        "KL009",
        "KL001",
        "KL014",
        "KL002",
        "KL003",
        "KL004",
        "KL016",
    ]
    for finding in document["findings"]:
        assert finding["plan"], finding["code"]
        if finding["code"] == "KL014":
            assert finding["expected_speedup"] is None
        else:
            assert finding["expected_speedup"]["summary"]


def test_advice_on_the_seed_kernel_is_one_schema_valid_yes() -> None:
    proc = run_kernlint("--format", "advice", str(KERNEL))
    verdict = json.loads(proc.stdout)
    schemas.validate("advice", verdict)
    assert isinstance(verdict, dict)
    assert list(verdict) == [
        "worth_optimizing",
        "reason",
        "bottleneck",
        "optimisation method",
        "modification plan",
        "expected_speedup",
        "path",
    ]
    assert verdict["worth_optimizing"] == "yes"
    # The ONE optimization is the finding whose rule has the largest measured
    # gain in the committed record (or, unmeasured, the first by priority).
    _, found = findings(KERNEL)
    performance = [f for f in found if f.category.is_performance]
    gains = {f.code: claims.measured_gain(f.code) or 0.0 for f in performance}
    best = max(performance, key=lambda f: (gains[f.code], -f.span.line))
    assert verdict["reason"].startswith(f"{best.code} {best.name} at line {best.span.line}:")
    assert verdict["modification plan"] == best.plan
    # The seed's kernel file holds no get_inputs (its reference does): the
    # cost model cannot size it, says why, and the pair's measurement follows.
    assert best.expected_speedup["for_this_file"] == {
        "status": "unknown",
        "reason": "not a KernelBench-style file (no get_inputs and model class)",
    }
    assert verdict["expected_speedup"].startswith(
        "the file's shapes are unknown (not a KernelBench-style file (no get_inputs and model class)); "
        f"the rule's reference pair measured {best.expected_speedup['summary']}"
    )


def test_advice_on_the_fixed_kernel_says_no_with_a_reason() -> None:
    outcome = run([str(FIXED)])
    (verdict,) = outcome.report.advice
    schemas.validate("advice", verdict)
    assert verdict["worth_optimizing"] == "no"
    assert verdict["reason"]
    assert outcome.exit_code == 0


def test_the_verdict_names_its_category_in_the_prompts_terms() -> None:
    proc = run_kernlint("--format", "advice", str(KERNEL))
    verdict = json.loads(proc.stdout)
    assert verdict["optimisation method"].startswith("Memory Layout Optimization: ")
