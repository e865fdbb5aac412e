"""Kernels imported from another module of the project (kernlint.project):
a launch sees the kernel it imports (its constexprs, autotuning, tl.dot),
whichever way the import is spelled; findings are the same whether the
file is linted alone or with its tree; the result cache misses when an
imported module changes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from kernlint.engine import lint_source

KERNELS = """\
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        acc += tl.dot(tl.load(a_ptr + rm[:, None] * K + rk[None, :]), tl.load(b_ptr + rk[:, None] * N + rn[None, :]))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def add_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
"""

AUTOTUNE = '@triton.autotune(configs=[triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32})], key=["M"])\n'


def ops(import_line: str, target: str) -> str:
    return f"""\
import torch
import triton
{import_line}


def matmul(a, b, c, M, N, K):
    {target}[(triton.cdiv(M, 64),)](a, b, c, M, N, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return c
"""


def tree(tmp_path: Path, ops_source: str, kernels: str = KERNELS) -> Path:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "kernels.py").write_text(kernels)
    (package / "sub" / "ops.py").write_text(ops_source)
    return package / "sub" / "ops.py"


def codes(path: Path) -> list[tuple[str, int, int]]:
    result = lint_source(str(path), path.read_text())
    return [(f.code, f.span.line, f.span.column) for f in result.findings]


@pytest.mark.parametrize(
    ("import_line", "target"),
    [
        ("from ..kernels import mm_kernel", "mm_kernel"),
        ("from ..kernels import mm_kernel as mm", "mm"),
        ("from .. import kernels", "kernels.mm_kernel"),
        ("from pkg.kernels import mm_kernel", "mm_kernel"),
        ("import pkg.kernels as K", "K.mm_kernel"),
    ],
)
def test_a_launch_of_an_imported_dot_kernel_with_fixed_tiles_is_reported(
    tmp_path: Path, import_line: str, target: str
) -> None:
    path = tree(tmp_path, ops(import_line, target))
    assert codes(path) == [("KL003", 7, 5)]
    plan = lint_source(str(path), path.read_text()).findings[0].plan
    assert f"of `mm_kernel` (in `{tmp_path / 'pkg' / 'kernels.py'}`)" in (plan or "")


def test_an_imported_autotuned_kernel_is_not_reported(tmp_path: Path) -> None:
    tuned = KERNELS.replace("@triton.jit\ndef mm_kernel", AUTOTUNE + "@triton.jit\ndef mm_kernel")
    path = tree(tmp_path, ops("from ..kernels import mm_kernel", "mm_kernel"), tuned)
    assert codes(path) == []


def test_an_imported_kernel_without_dot_is_not_reported(tmp_path: Path) -> None:
    source = ops("from ..kernels import add_kernel", "add_kernel").replace(
        "(a, b, c, M, N, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)", "(a, b, M, BLOCK=1024)"
    )
    assert codes(tree(tmp_path, source)) == []


@pytest.mark.parametrize(
    "import_line",
    ["from ..missing import mm_kernel", "from ..kernels import not_a_kernel as mm_kernel", "from os import mm_kernel"],
)
def test_an_import_that_reaches_no_kernel_of_the_project_is_silent(tmp_path: Path, import_line: str) -> None:
    assert codes(tree(tmp_path, ops(import_line, "mm_kernel"))) == []


def test_an_import_cycle_does_not_recurse(tmp_path: Path) -> None:
    cyclic = "from .sub.ops import matmul\n" + KERNELS
    path = tree(tmp_path, ops("from ..kernels import mm_kernel", "mm_kernel"), cyclic)
    assert codes(path) == [("KL003", 7, 5)]


def test_the_result_records_the_files_it_read(tmp_path: Path) -> None:
    path = tree(tmp_path, ops("from ..kernels import mm_kernel", "mm_kernel"))
    result = lint_source(str(path), path.read_text())
    assert [p for p, _ in result.dependencies] == [str(tmp_path / "pkg" / "kernels.py")]
    assert all(len(digest) == 64 for _, digest in result.dependencies)


def kernlint(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernlint", *args], cwd=cwd, capture_output=True, timeout=300)


def test_a_file_linted_alone_or_with_its_tree_reports_the_same(tmp_path: Path) -> None:
    tree(tmp_path, ops("from ..kernels import mm_kernel", "mm_kernel"))
    alone = kernlint(tmp_path, "--no-cache", "--format", "json", "pkg/sub/ops.py")
    whole = kernlint(tmp_path, "--no-cache", "--format", "json", "--jobs", "2", "pkg")
    assert alone.returncode == whole.returncode == 1
    findings = json.loads(alone.stdout)["findings"]
    assert [(f["code"], f["line"]) for f in findings] == [("KL003", 7)]
    assert json.loads(whole.stdout)["findings"] == findings


def test_the_cache_misses_when_an_imported_kernel_changes(tmp_path: Path) -> None:
    tree(tmp_path, ops("from ..kernels import mm_kernel", "mm_kernel"))
    (tmp_path / "pyproject.toml").write_text("[tool.kernlint]\n")
    first = kernlint(tmp_path, "pkg/sub/ops.py")
    assert first.returncode == 1 and b"KL003" in first.stdout
    again = kernlint(tmp_path, "pkg/sub/ops.py")
    assert again.stdout == first.stdout
    kernels = tmp_path / "pkg" / "kernels.py"
    kernels.write_text(KERNELS.replace("@triton.jit\ndef mm_kernel", AUTOTUNE + "@triton.jit\ndef mm_kernel"))
    tuned = kernlint(tmp_path, "pkg/sub/ops.py")
    assert tuned.returncode == 0 and b"KL003" not in tuned.stdout


SHAPE_HELPERS = """\
def dim_last(inp, dim):
    order = [d for d in range(inp.ndim) if d != dim] + [dim]
    return inp.permute(order).contiguous()


def dim_last_named(inp, dim):
    out = inp.transpose(dim, -1).contiguous()
    return out


def plain_copy(inp):
    return inp.contiguous()


def round_trip(x):
    y = x.transpose(1, 2).contiguous()
    return y.transpose(1, 2)


def by_stride(inp, dims):
    stride = inp.stride()
    kept = [d for d in range(inp.ndim) if d not in dims]
    order = kept + sorted(dims, key=lambda d: stride[d], reverse=True)
    return inp.permute(order).contiguous()
"""

REDUCTION = """\
import torch
import triton
import triton.language as tl
from .utils import shape
from .utils.shape import by_stride, dim_last, dim_last_named, plain_copy, round_trip
from .utils import reexported


@triton.jit
def row_sum(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + tl.program_id(0), tl.sum(tl.load(x_ptr + tl.program_id(0) * N + offs, mask=offs < N)))


def sum_dim(inp, dim):
    x = {call}
    out = torch.empty(x.numel() // x.shape[-1], device=x.device)
    row_sum[(out.numel(),)](x, out, x.shape[-1], BLOCK=1024)
    return out


def not_hot(inp, dim):
    return dim_last(inp, dim)
"""


def reduction_tree(tmp_path: Path, call: str) -> Path:
    utils = tmp_path / "pkg" / "utils"
    utils.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (utils / "__init__.py").write_text("from .shape import dim_last as reexported\n")
    (utils / "shape.py").write_text(SHAPE_HELPERS)
    path = tmp_path / "pkg" / "reduce.py"
    path.write_text(REDUCTION.replace("{call}", call))
    return path


@pytest.mark.parametrize(
    ("call", "helper_line"),
    [
        ("dim_last(inp, dim)", 3),
        ("shape.dim_last(inp, dim)", 3),
        ("dim_last_named(inp, dim)", 7),
        ("reexported(inp, dim)", 3),  # `from .shape import dim_last as reexported` in utils/__init__.py
        ("by_stride(inp, [dim])", 24),
    ],
)
def test_a_helper_of_another_module_that_relayouts_its_argument_is_reported_at_the_call(
    tmp_path: Path, call: str, helper_line: int
) -> None:
    path = reduction_tree(tmp_path, call)
    assert codes(path) == [("KL002", 16, 9)]
    finding = lint_source(str(path), path.read_text()).findings[0]
    assert finding.severity.value == "info" and finding.confidence == "medium"
    assert f"({tmp_path / 'pkg' / 'utils' / 'shape.py'}:{helper_line})" in finding.message
    assert "`inp` is an activation" in finding.message


@pytest.mark.parametrize(
    "call",
    [
        "plain_copy(inp)",
        "round_trip(inp)",
        "inp",
        # Every dim, ordered by stride: the tensor's own memory order, no copy.
        "by_stride(inp, list(range(inp.ndim)))",
        "by_stride(inp, range(inp.dim()))",
        # A copy is due anyway when the input is not contiguous.
        "inp if inp.is_contiguous() else inp.contiguous()\n    if not inp.is_contiguous():\n        x = dim_last(inp, dim)",
    ],
)
def test_a_helper_that_makes_no_relayout_copy_is_not_reported(tmp_path: Path, call: str) -> None:
    assert codes(reduction_tree(tmp_path, call)) == []


def test_an_absolute_import_from_a_folder_without_init_finds_the_package_above(tmp_path: Path) -> None:
    """Folders without __init__.py are namespace packages: the package root
    of a file there stops short of the package its absolute import names."""
    tree(tmp_path, ops("from ..kernels import mm_kernel", "mm_kernel"))
    backend = tmp_path / "pkg" / "backend" / "vendor"  # no __init__.py in either
    backend.mkdir(parents=True)
    path = backend / "ops.py"
    path.write_text(ops("from pkg.kernels import mm_kernel", "mm_kernel"))
    assert codes(path) == [("KL003", 7, 5)]


def test_a_module_modelled_for_an_importer_is_not_parsed_again(tmp_path: Path, monkeypatch) -> None:
    """libcst's parse is most of a file's cost: kernels.py, parsed when
    ops.py's launch asked about its kernel, keeps that tree when it is
    linted itself; its findings are those of a fresh parse."""
    from kernlint import engine

    path = tree(tmp_path, ops("from ..kernels import mm_kernel", "mm_kernel"))
    kernels = tmp_path / "pkg" / "kernels.py"
    fresh = [(f.code, f.span.line, f.span.column) for f in lint_source(str(kernels), KERNELS).findings]
    codes(path)  # models kernels.py for the import
    parsed: list[str] = []
    real = engine.parse
    monkeypatch.setattr(engine, "parse", lambda text: parsed.append(text) or real(text))
    assert codes(kernels) == fresh
    assert parsed == []
    kernels.write_text(KERNELS + "\n")  # another text: parsed afresh
    codes(kernels)
    assert len(parsed) == 1


def test_a_gemm_launch_of_an_imported_kernel_summed_in_torch_is_read_in_the_kernels_own_file(tmp_path: Path) -> None:
    """KL026 reads the imported kernel's tile flow in the model of the file that defines it (it looked the
    kernel's loops up in the launching file's positions: an internal error, KL999, on liger-kernel)."""
    source = """\
import torch
import triton
from ..kernels import mm_kernel


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(64, 64))

    def forward(self, x):
        c = torch.empty(x.shape[0], 64, device=x.device)
        mm_kernel[(triton.cdiv(x.shape[0], 64),)](x, self.weight, c, x.shape[0], 64, 64, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
        return torch.sum(c, dim=1)
"""
    found = codes(tree(tmp_path, source))
    assert not [code for code, _, _ in found if code.startswith("KL9")]
    assert ("KL026", 13, 9) in found
