"""Test files (issue 27): performance findings are reported there as
anywhere (ruff switches no rule off by path), but with no speedup claim and
a "no" verdict, since a test's tensors have a test's shapes."""

from __future__ import annotations

import pytest
from kernlint import advice
from kernlint.discovery import is_other_backend_file, is_test_file
from kernlint.engine import lint_source

SOURCE = """\
import torch
class Head(torch.nn.Module):
    def forward(self, x, w, b):
        y = torch.matmul(x, w)
        return torch.relu(y * 2.0 + b)
"""


@pytest.mark.parametrize(
    ("path", "test"),
    [
        ("tests/test_mm.py", True),
        ("tests/helpers.py", True),
        ("pkg/test/kernels.py", True),
        ("test_mm.py", True),
        ("pkg/mm_test.py", True),
        ("conftest.py", True),
        ("pkg/mm.py", False),
        ("pkg/testing.py", False),
        ("pkg/latest.py", False),
        ("pkg/tests.py", False),
        ("/tmp/pytest-of-me/pytest-3/test_case0/mm.py", False),
    ],
)
def test_test_files_by_pytest_conventions(path: str, test: bool) -> None:
    assert is_test_file(path) is test


def test_a_test_file_is_reported_without_a_speedup_claim_and_its_verdict_is_no() -> None:
    library = lint_source("pkg/head.py", SOURCE)
    tested = lint_source("tests/test_head.py", SOURCE)
    assert [(f.code, f.span.line, f.span.column) for f in library.findings] == [("KL004", 4, 13)]
    assert [(f.code, f.span.line, f.span.column) for f in tested.findings] == [("KL004", 4, 13)]
    assert library.findings[0].expected_speedup is not None
    assert tested.findings[0].expected_speedup is None
    assert tested.findings[0].message == library.findings[0].message
    verdict = advice.verdict("tests/test_head.py", tested.findings)
    assert verdict["worth_optimizing"] == "no"
    assert verdict["reason"].startswith("A test file (KL004 found)")
    assert verdict["expected_speedup"] == ""


@pytest.mark.parametrize(
    ("path", "other"),
    [
        ("fla/ops/gla/backends/triton_ascend/chunk.py", True),
        ("fla/modules/fused_cross_entropy/triton_ascend.py", True),
        ("flag_gems/runtime/backend/_mthreads/ops/mm.py", True),
        ("liger_kernel/ops/backends/_ascend/ops/cross_entropy.py", True),
        ("flag_gems/runtime/backend/_nvidia/ops/mm.py", False),
        ("fla/ops/gla/chunk.py", False),
        ("pkg/shipment.py", False),
    ],
)
def test_non_nvidia_backends_by_folder_or_file_name(path: str, other: bool) -> None:
    assert is_other_backend_file(path) is other


def test_a_non_nvidia_backend_is_reported_without_an_h100_claim_and_its_verdict_is_no() -> None:
    library = lint_source("pkg/head.py", SOURCE)
    npu = lint_source("pkg/backends/triton_ascend/head.py", SOURCE)
    assert [f.message for f in npu.findings] == [f.message for f in library.findings]
    assert npu.findings[0].expected_speedup is None
    verdict = advice.verdict("pkg/backends/triton_ascend/head.py", npu.findings)
    assert verdict["worth_optimizing"] == "no"
    assert verdict["reason"].startswith("Code for a non-NVIDIA backend (KL004 found)")
