"""KL027 dead-or-constant-result (issue 27 item 5's last case): work whose
result is a constant at the file's shapes, or is never used; the shape
table's constants, returned tensors and def-use, and the cost effect that
removes the work."""

from __future__ import annotations

import textwrap

import pytest
from kernlint import cost
from kernlint.advice import verdict
from kernlint.engine import lint_source
from kernlint.model import build_model
from kernlint.source import parse

GEMM_MAX_SUBTRACT_GELU = """
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self, in_features, out_features, max_dim):
            super(Model, self).__init__()
            self.gemm = nn.Linear(in_features, out_features)
            self.max_dim = max_dim

        def forward(self, x):
            x = self.gemm(x)
            x = torch.max(x, dim=self.max_dim, keepdim=True).values
            x = x - x.mean(dim=1, keepdim=True)
            x = torch.nn.functional.gelu(x)
            return x

    batch_size = 1024
    in_features = 8192
    out_features = 8192
    max_dim = 1

    def get_inputs():
        return [torch.rand(batch_size, in_features)]

    def get_init_inputs():
        return [in_features, out_features, max_dim]
"""


def model(source: str):
    text = textwrap.dedent(source)
    return build_model("problem.py", text, parse(text))


def findings(source: str, path: str = "problem.py"):
    return lint_source(path, textwrap.dedent(source)).findings


def test_kernelbench_gemm_max_subtract_gelu_is_zeros() -> None:
    found = findings(GEMM_MAX_SUBTRACT_GELU)
    assert [(f.code, f.span.line, f.span.column) for f in found] == [("KL027", 14, 13)]
    f = found[0]
    assert "all zeros" in f.message and "[1024, 1]" in f.message and "the GEMM `self.gemm(x)`" in f.message
    assert f.plan.startswith("The output is all zeros of shape [1024, 1]")
    e = f.expected_speedup["for_this_file"]
    # An 8192^3/8 fp32 GEMM (milliseconds) against one fill of 4 KB (microseconds).
    assert e["status"] == "estimated" and e["graph"] > 100 and e["kernelbench"] > 50
    answer = verdict("problem.py", found)
    assert answer["worth_optimizing"] == "yes"
    assert answer["optimisation method"].startswith("Algorithm Replacement")


def test_the_table_follows_the_constant_and_the_returned_output() -> None:
    entry = model(GEMM_MAX_SUBTRACT_GELU).entry_point
    assert [op.kind for op in entry.ops] == ["gemm", "reduction", "reduction", "elementwise", "elementwise"]
    assert [op.value for op in entry.ops] == [None, None, None, 0.0, 0.0]
    assert [op.returned for op in entry.ops] == [False, False, False, False, True]
    assert entry.outputs == ((4, (1024, 1), 0.0),)
    assert not entry.side_effects
    fixed = cost.remove_dead_work(entry.ops, entry.ops[3].line, entry.ops[3].line)
    assert fixed is not None
    assert [(op.kind, op.note, op.out_bytes) for op in fixed] == [("alloc", "fill", 4 * 1024)]


def test_dropout_then_mean_then_softmax_is_ones() -> None:
    source = GEMM_MAX_SUBTRACT_GELU.replace(
        """x = torch.max(x, dim=self.max_dim, keepdim=True).values
            x = x - x.mean(dim=1, keepdim=True)
            x = torch.nn.functional.gelu(x)""",
        """x = torch.nn.functional.dropout(x, p=0.2, training=True)
            x = torch.mean(x, dim=1, keepdim=True)
            x = torch.softmax(x, dim=1)""",
    )
    found = findings(source)
    assert [(f.code, f.span.line) for f in found] == [("KL027", 15)]
    assert "all ones of shape [1024, 1]" in found[0].message


def test_a_softmax_over_a_real_dimension_and_unknown_sizes_stay_silent() -> None:
    over_features = GEMM_MAX_SUBTRACT_GELU.replace("keepdim=True).values", "keepdim=False).values.unsqueeze(0)")
    # [1, 1024]: the mean over dimension 1 averages 1024 numbers (the fp32 GEMM before it is KL032's).
    assert [f.code for f in findings(over_features) if f.code != "KL032"] == []
    unknown = GEMM_MAX_SUBTRACT_GELU.replace("return [torch.rand(batch_size, in_features)]", "return [load()]")
    assert model(unknown).entry_point.unknown
    assert [f.code for f in findings(unknown)] == []


def test_def_use_with_an_in_place_write_or_a_triton_launch_says_nothing() -> None:
    in_place = GEMM_MAX_SUBTRACT_GELU.replace(
        "x = torch.nn.functional.gelu(x)", "x = torch.nn.functional.gelu(x)\n            x.add_(1.0)"
    )
    assert model(in_place).entry_point.side_effects
    assert model(in_place).dead_work == ()
    assert [f.code for f in findings(in_place)] == []


def test_an_unused_gemm_is_reported_and_removed_by_the_estimate() -> None:
    source = """
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(4096, 4096)
                self.fc2 = nn.Linear(4096, 4096)

            def forward(self, x):
                y = self.fc1(x)
                z = torch.relu(self.fc2(x))
                return torch.relu(y)

        def get_inputs():
            return [torch.rand(2048, 4096)]

        def get_init_inputs():
            return []
    """
    found = [f for f in findings(source) if f.code == "KL027"]
    assert [(f.span.line, f.span.column) for f in found] == [(13, 24)]
    assert "computes a GEMM whose result never reaches what `forward` returns" in found[0].message
    e = found[0].expected_speedup["for_this_file"]
    # Two equal GEMMs, one of them unused: about half the time goes.
    assert e["graph"] == pytest.approx(2.0, rel=0.1)


def test_slices_and_transposes_of_one_tensor_are_not_the_same_values() -> None:
    source = GEMM_MAX_SUBTRACT_GELU.replace(
        """x = torch.max(x, dim=self.max_dim, keepdim=True).values
            x = x - x.mean(dim=1, keepdim=True)""",
        """x = x[:, :4096] - x[:, 4096:]""",
    )
    assert [f.code for f in findings(source) if f.code == "KL027"] == []
    square = GEMM_MAX_SUBTRACT_GELU.replace(
        """x = torch.max(x, dim=self.max_dim, keepdim=True).values
            x = x - x.mean(dim=1, keepdim=True)""",
        """x = x[:, :1024] - x[:, :1024].t()""",
    )
    assert [f.code for f in findings(square) if f.code == "KL027"] == []


def test_torch_max_over_a_dimension_returns_values_and_indices() -> None:
    source = GEMM_MAX_SUBTRACT_GELU.replace(
        """x = torch.max(x, dim=self.max_dim, keepdim=True).values
            x = x - x.mean(dim=1, keepdim=True)""",
        """x = torch.min(x, 1)[0]""",
    )
    entry = model(source).entry_point
    assert not entry.unknown
    assert entry.outputs[0][1] == (1024,)


def test_tests_and_the_main_guard_are_silent() -> None:
    assert [f.code for f in findings(GEMM_MAX_SUBTRACT_GELU, path="tests/test_problem.py")] == []


def test_kl026_and_kl004_leave_a_gemm_that_only_feeds_a_constant_to_kl027() -> None:
    source = """
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.score = nn.Linear(512, 512)

            def forward(self, x):
                s = self.score(x).sum(dim=-1, keepdim=True)
                return x * torch.softmax(s, dim=-1)

        def get_inputs():
            return [torch.rand(256, 512)]

        def get_init_inputs():
            return []
    """
    found = findings(source)
    assert [(f.code, f.span.line) for f in found] == [("KL027", 12)]
    assert found[0].plan.startswith("Use the number 1 where `torch.softmax(s, dim=-1)` is read")


def test_a_buffer_also_named_by_an_alias_handed_to_the_same_launch_keeps_def_use_complete() -> None:
    """`init = out` (an optional initial state defaulting to the output buffer), both passed to the last
    launch: the alias is the same tensor, rebound with it, so the launch's write is no side effect and the
    first launch's `y`, which nothing reads, is dead work."""
    source = """
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)

    @triton.jit
    def total(x_ptr, init_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr, tl.load(init_ptr) + tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0)))

    class ModelNew(torch.nn.Module):
        def forward(self, x, initial=None):
            y = torch.empty_like(x)
            out = torch.zeros(1, device=x.device)
            scale[(x.numel() // 1024,)](x, y, x.numel(), BLOCK=1024)
            init = initial if initial is not None else out
            total[(1,)](x, init, out, x.numel(), BLOCK=1024)
            return out

    def get_inputs():
        return [torch.randn(4096, 4096)]

    def get_init_inputs():
        return []
    """
    assert [(f.code, f.span.line) for f in findings(source) if f.code == "KL027"] == [("KL027", 20)]


TRITON_TAIL = """
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def gemm_rowmax(x_ptr, w_ptr, m_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rows = tl.program_id(0) * BM + tl.arange(0, BM)
        cols = tl.program_id(1) * BN + tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            ks = k + tl.arange(0, BK)
            a = tl.load(x_ptr + rows[:, None] * K + ks[None, :])
            b = tl.load(w_ptr + cols[None, :] * K + ks[:, None])
            acc = tl.dot(a, b, acc)
        tl.atomic_max(m_ptr + rows, tl.max(acc, axis=1))

    @triton.jit
    def center_gelu(m_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(m_ptr + offs, mask=offs < n)
        CENTER
        tl.store(y_ptr + offs, 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476)), mask=offs < n)

    class ModelNew(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.randn(8192, 8192))

        def forward(self, x):
            M, K = x.shape
            rowmax = torch.full((M,), float("-inf"), device=x.device)
            gemm_rowmax[(M // 128, 8192 // 128)](x, self.weight, rowmax, M, 8192, K, BM=128, BN=128, BK=32)
            out = torch.empty((M, 1), device=x.device)
            center_gelu[(triton.cdiv(M, 1024),)](rowmax, out, M, BLOCK=1024)
            return out

    def get_inputs():
        return [torch.rand(1024, 8192)]

    def get_init_inputs():
        return []
"""


@pytest.mark.parametrize(
    "center, cancelled, how",
    [
        ("v = v - v / 1.0", "v - v / 1.0", "a value minus itself"),
        ("mean = v\n        v -= mean", "v -= mean", "a value minus itself"),
        ("v = (v - tl.max(v, axis=0)) * 0.0", "(v - tl.max(v, axis=0)) * 0.0", "a product with zero"),
    ],
)
def test_a_triton_kernel_whose_loaded_data_cancels_stores_a_constant(center: str, cancelled: str, how: str) -> None:
    source = TRITON_TAIL.replace("CENTER", center)
    lines = textwrap.dedent(source).splitlines()
    launch = 1 + next(i for i, line in enumerate(lines) if "center_gelu[(" in line)
    gemm = launch - 2
    found = findings(source)
    # The GEMM kernel's own findings (its tile order, its fixed config) stay: they are about that kernel.
    assert [(f.code, f.span.line, f.span.column) for f in found] == [
        ("KL009", 8, 12),
        ("KL003", gemm, 9),
        ("KL027", launch, 9),
    ]
    found = [f for f in found if f.code == "KL027"]
    assert found[0].message.startswith(
        "`center_gelu[(triton.cdiv(M, 1024),)](...)` in `ModelNew.forward` is all zeros whatever its input holds: "
        f"`center_gelu` stores only values computed from `{cancelled}` (line "
    )
    assert f"), {how}; the work before it (" in found[0].message
    assert "`gemm_rowmax[(M // 128, 8192 // 128)](...)`" in found[0].message
    assert found[0].message.endswith("and `forward` returns all zeros of shape [1024, 1]")
    # The GEMM goes with the constant: the estimate is the GEMM's time against a fill's.
    assert found[0].expected_speedup["for_this_file"]["graph"] > 50


@pytest.mark.parametrize(
    "center",
    [
        "v = v - tl.max(v, axis=0)",  # a real shift
        "v = v - tl.load(m_ptr + offs + 1, mask=offs + 1 < n)",  # a neighbour, not the same value
        "for i in range(2):\n            v = v - v",  # a loop: the folder does not follow it
    ],
)
def test_a_kernel_whose_values_do_not_cancel_in_straight_line_code_is_not_a_constant(center: str) -> None:
    source = TRITON_TAIL.replace("CENTER", center)
    assert model(source).dead_work == ()
    assert "KL027" not in [f.code for f in findings(source)]


CLAMPED = """
    import torch
    import torch.nn as nn
    import triton
    import triton.language as tl

    @triton.jit
    def min_clamp_dropout(x_ptr, y_ptr, n, lo, hi, p, seed, TRAINING: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + offs, mask=offs < n)
        v = tl.minimum(v, lo)
        v = tl.minimum(tl.maximum(v, lo), hi)
        if TRAINING:
            keep = tl.rand(seed, offs) >= p
            v = tl.where(keep, v / (1.0 - p), 0.0)
        tl.store(y_ptr + offs, v, mask=offs < n)

    class ModelNew(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv3d(3, 16, 3)

        def forward(self, x):
            x = self.conv(x)
            y = torch.empty_like(x)
            seed = int(torch.randint(0, 2**31 - 1, (1,)).item())
            min_clamp_dropout[(triton.cdiv(x.numel(), 1024),)](
                x, y, x.numel(), LOW_BOUND, 1.0, 0.2, seed, TRAINING=self.training, BLOCK=1024
            )
            return y

    def get_inputs():
        return [torch.rand(128, 3, 16, 64, 64)]

    def get_init_inputs():
        return []
"""


def test_a_value_clamped_to_one_number_by_the_launchs_bounds_is_a_constant_through_dropout() -> None:
    """KernelBench level2/83 in one kernel: min(v, 0) then clamp(0, 1) is 0 for every v (the bounds are the
    launch's numbers), dropout keeps zeros (its branch decided by the launch's TRAINING), and a fresh seed
    read on the host does not steer the data: the conv before it goes."""
    found = [f for f in findings(CLAMPED.replace("LOW_BOUND", "0.0")) if f.code == "KL027"]
    assert [(f.span.line, f.span.column) for f in found] == [(27, 9)]
    assert "stores only values computed from `tl.maximum(v, lo)`" in found[0].message
    assert "a value clamped to one number" in found[0].message
    assert "(`self.conv(x)`, `torch.empty_like(x)`)" in found[0].message or "`self.conv(x)`" in found[0].message
    assert found[0].message.endswith("and `forward` returns all zeros of shape [128, 16, 14, 62, 62]")


def test_a_clamp_to_a_range_is_not_a_constant() -> None:
    """Without the min before it, the clamp to [0, 1] leaves each value its own: nothing folds. With the min
    at 0.5 the clamp gives 0.5 whatever v holds, but dropout then keeps some 0.625 and zeroes others: not one
    number, unless the launch turns dropout off (TRAINING=False), where the output is 0.5 everywhere."""
    plain = CLAMPED.replace("LOW_BOUND", "0.0").replace("        v = tl.minimum(v, lo)\n", "")
    assert "tl.minimum(v, lo)\n" not in plain
    assert "KL027" not in [f.code for f in findings(plain)]
    assert "KL027" not in [f.code for f in findings(CLAMPED.replace("LOW_BOUND", "0.5"))]
    evaluation = CLAMPED.replace("LOW_BOUND", "0.5").replace("TRAINING=self.training", "TRAINING=False")
    half = [f for f in findings(evaluation) if f.code == "KL027"]
    assert [f.span.line for f in half] == [27]
    assert "is the number 0.5 everywhere whatever its input holds" in half[0].message


ROW_TILE = """
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def sub_mean_gelu(x_ptr, y_ptr, M, C, BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
        rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.arange(0, BLOCK_C)
        mask = (rows[:, None] < M) & (cols[None, :] < C)
        x = tl.load(x_ptr + rows[:, None] * C + cols[None, :], mask=mask, other=0.0)
        v = x - (tl.sum(x, axis=1) / C)[:, None]
        tl.store(y_ptr + rows[:, None] * C + cols[None, :], 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476)), mask=mask)

    class ModelNew(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gemm = torch.nn.Linear(8192, 8192)

        def forward(self, x):
            r = REDUCED
            M, C = r.shape
            y = torch.empty_like(r)
            sub_mean_gelu[(triton.cdiv(M, 128),)](r, y, M, C, BLOCK_M=128, BLOCK_C=triton.next_power_of_2(C))
            return y

    def get_inputs():
        return [torch.rand(1024, 8192)]

    def get_init_inputs():
        return []
"""


def test_a_row_mean_over_a_one_column_tile_is_the_row_itself() -> None:
    # At C = 1 the launch's tile is [128, 1]: the sum over axis 1 is each row's one value, so the kernel
    # stores GELU(0) everywhere (KernelBench's gemm-max-subtract-GELU written in Triton).
    rowmax = "torch.max(self.gemm(x), dim=1, keepdim=True).values"
    found = [f for f in findings(ROW_TILE.replace("REDUCED", rowmax)) if f.code == "KL027"]
    assert len(found) == 1
    assert "`sub_mean_gelu` stores only values computed from `x - (tl.sum(x, axis=1) / C)[:, None]`" in found[0].message
    assert found[0].message.endswith("and `forward` returns all zeros of shape [1024, 1]")
    # Four columns (the max of each of four column blocks): a real mean, no constant.
    source = ROW_TILE.replace("REDUCED", "torch.amax(self.gemm(x).view(-1, 4, 2048), dim=2)")
    assert model(source).dead_work == ()
    assert "KL027" not in [f.code for f in findings(source)]
