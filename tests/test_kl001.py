"""KL001 upcast-before-dot: on the seed kernel and on the cases its spec names."""

from __future__ import annotations

import textwrap
from pathlib import Path

from kernlint.engine import Settings, lint_source

SEED = Path(__file__).resolve().parent.parent / "fixtures" / "seed" / "kernel.py"


def kl001(source: str):
    result = lint_source("example.py", textwrap.dedent(source), Settings(select=frozenset({"KL001"})))
    assert not [f for f in result.findings if f.code == "KL999"]
    return [f for f in result.findings if f.code == "KL001"]


KERNEL = """
import torch
import triton
import triton.language as tl

@triton.jit
def qk(a_ptr, b_ptr, scale_a_ptr, scale_b_ptr, c_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
    b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    acc += tl.dot(tl.cast(a, tl.float32), tl.cast(b, tl.float32))
    tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
"""


def test_seed_kernel_reports_the_int8_upcast_at_the_dot_with_host_evidence() -> None:
    result = lint_source(str(SEED), SEED.read_text(encoding="utf-8"))
    found = [(f.code, f.span.line, f.span.column, f.confidence) for f in result.findings if f.code == "KL001"]
    assert found == [("KL001", 54, 16, "high")]
    finding = next(f for f in result.findings if f.code == "KL001")
    assert finding.kernel == "int8_matmul_rowwise_dequant_kernel"
    assert "`int8_matmul_rowwise_dequant_kernel`" in finding.message
    assert "`a_f32` and `b_f32`" in finding.message
    assert "int8 loads of `a_ptr` (x: int8 by assert at line 102)" in finding.message
    assert "`b_ptr` (b = weight_int8.t().contiguous(): int8 by assert at line 103)" in finding.message
    assert "out_dtype=tl.int32" in finding.plan
    assert "acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)" in finding.plan
    assert "`scale_x_ptr`, `scale_w_ptr`" in finding.plan


def test_only_the_conversion_visible_gives_medium_confidence() -> None:
    [finding] = kl001(KERNEL)
    assert (finding.span.line, finding.span.column, finding.confidence) == (12, 12, "medium")
    assert "not known from host code" in finding.message
    # Both fixes are offered when the dtype is unknown; the scales are named.
    assert "out_dtype=tl.int32" in finding.plan and "fp16/bf16" in finding.plan
    assert "`scale_a_ptr`, `scale_b_ptr`" in finding.plan
    assert "acc = tl.zeros((BLOCK, BLOCK), dtype=tl.int32)" in finding.plan


def test_dtype_from_get_inputs_through_a_module_forward_is_high_confidence() -> None:
    source = (
        KERNEL
        + """
class ModelNew(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randint(-128, 127, (n, n), dtype=torch.int8), requires_grad=False)

    def forward(self, x, sx, sw, out, block):
        qk[(1,)](x, self.w, sx, sw, out, BLOCK=block)
        return out

def get_inputs():
    x = torch.randint(-128, 127, (64, 64), dtype=torch.int8)
    return [x]
"""
    )
    [finding] = kl001(source)
    assert finding.confidence == "high"
    assert "(x: int8 from get_inputs() at line 25)" in finding.message
    assert "(self.w: int8, created with dtype=torch.int8 at line 18)" in finding.message
    assert "instead of int8 tensor cores" in finding.message


def test_fp16_operands_get_an_fp32_accumulator_plan() -> None:
    [finding] = kl001(
        KERNEL
        + """
def run(x, w, sx, sw, out, block):
    qk[(1,)](x.half(), w.to(torch.bfloat16), sx, sw, out, BLOCK=block)
"""
    )
    assert finding.confidence == "high"
    assert "fp16 loads of `a_ptr`" in finding.message and "bf16 loads of `b_ptr`" in finding.message
    assert "out_dtype=tl.int32" not in finding.plan
    assert "acc = tl.dot(a, b, acc)" in finding.plan


def test_a_launch_with_fp32_tensors_silences_the_rule() -> None:
    # One launch says int8, another fp32: the conversion may be a no-op.
    assert (
        kl001(
            KERNEL
            + """
def run(x, w, sx, sw, out, block):
    assert x.dtype == torch.int8
    qk[(1,)](x, w, sx, sw, out, BLOCK=block)
    qk[(1,)](x.float(), w, sx, sw, out, BLOCK=block)
"""
        )
        == []
    )


def test_precision_comment_on_the_line_above_silences_the_rule() -> None:
    source = KERNEL.replace(
        "    acc += tl.dot(", "    # precision: the fp32 product is the reference\n    acc += tl.dot("
    )
    assert kl001(source) == []


def test_hash_inside_a_string_is_not_a_comment() -> None:
    source = KERNEL.replace("tl.cast(b, tl.float32))", 'tl.cast(b, tl.float32), input_precision="tf32")  # x')
    source = source.replace('"tf32")  # x', '"tf32")')
    assert len(kl001(source)) == 1
    assert len(kl001(KERNEL.replace("tl.float32))\n", 'tl.float32), out_dtype=tl.float32)  # "# precision"\n'))) == 0


def test_block_pointer_loads_are_traced_to_their_base_pointer() -> None:
    [finding] = kl001(
        """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def bp(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
            a_blk = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, 1), offsets=(0, 0), block_shape=(BM, BK), order=(1, 0))
            b_blk = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, 1), offsets=(0, 0), block_shape=(BK, BN), order=(1, 0))
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for k in range(0, K, BK):
                a = tl.load(a_blk).to(tl.float32)
                b = tl.load(b_blk).to(tl.float32)
                acc = tl.dot(a, b, acc)
                a_blk = tl.advance(a_blk, (0, BK))
                b_blk = tl.advance(b_blk, (BK, 0))
            tl.store(c_ptr, acc)

        def run(x, w, out, bm, bn, bk):
            assert x.dtype == torch.float16
            assert w.dtype == torch.float16
            bp[(1,)](x, w, out, 1, 1, 1, x.stride(0), w.stride(0), BM=bm, BN=bn, BK=bk)
        """
    )
    assert (finding.span.line, finding.span.column, finding.confidence) == (14, 15, "high")
    assert "fp16 loads of `a_ptr` (x: fp16 by assert at line 20)" in finding.message
    assert "acc = tl.dot(a, b, acc)` with the fp32 `acc = tl.zeros((BM, BN), dtype=tl.float32)`" in finding.plan


def test_model_kernel_value_dtype_follows_loads_to_the_launch_and_conversions() -> None:
    from kernlint.model import build_model
    from kernlint.source import parse

    source = textwrap.dedent(KERNEL) + textwrap.dedent(
        """
        def run(x, w, sa, sb, out, block):
            assert x.dtype == torch.int8
            qk[(1,)](x, w, sa, sb, out, BLOCK=block)
        """
    )
    model = build_model("m.py", source, parse(source))
    kernel = model.kernels["qk"]
    dot = next(c for c in kernel.function.calls if model.is_tl(c.func, "dot"))
    a_cast, b_cast = (arg.value for arg in dot.args)
    loaded_a = model.kernel_cast(kernel, a_cast).value
    loaded_b = model.kernel_cast(kernel, b_cast).value
    assert model.kernel_value_dtype(kernel, loaded_a).dtype == "int8"
    assert model.kernel_value_dtype(kernel, loaded_b) is None  # w: nothing known
    assert model.kernel_value_dtype(kernel, a_cast).dtype == "float32"
    assert model.pointer_dtype(kernel, "a_ptr").evidence == "assert at line 16"
