"""KL012 int32-offset-overflow: where it reports, how the size judgement is
made, the promotions it accepts and the one-line kernel suppression."""

from __future__ import annotations

import textwrap

from kernlint.engine import Settings, lint_source

LOGITS = """
import triton
import triton.language as tl
@triton.jit
def ce(logits_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(logits_ptr + row * stride + cols, mask=cols < n_cols)
    tl.store(logits_ptr + row * stride + cols, x * 2, mask=cols < n_cols)
"""


def kl012(source: str):
    result = lint_source("example.py", textwrap.dedent(source), Settings(select=frozenset({"KL012"})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [f for f in result.findings if f.code == "KL012"]


def test_one_finding_per_kernel_at_its_first_product() -> None:
    found = kl012(LOGITS)
    assert [(f.code, f.span.line, f.span.column, f.severity.value, f.category.value) for f in found] == [
        ("KL012", 8, 30, "warning", "hazard")
    ]
    assert "`row * stride` in `ce`" in found[0].message
    assert "(1 more such product in this kernel, at line 9)" in found[0].message
    assert "`logits_ptr` names a tensor" in found[0].message
    assert "`row` with `.to(tl.int64)`" in found[0].plan
    assert "`# noqa: KL012` at the end of line 8" in found[0].plan
    assert found[0].expected_speedup is None


def test_the_same_kernel_without_a_large_name_is_silent() -> None:
    assert kl012(LOGITS.replace("logits_ptr", "x_ptr")) == []


def test_promoting_the_program_id_or_an_int64_argument_silences_it() -> None:
    assert kl012(LOGITS.replace("tl.program_id(0)", "tl.program_id(0).to(tl.int64)")) == []
    assert kl012(LOGITS.replace("tl.program_id(0)", "tl.program_id(0).cast(tl.int64)")) == []
    assert kl012(LOGITS.replace("stride, n_cols", "stride: tl.int64, n_cols")) == []


def test_one_noqa_on_the_reported_line_silences_the_kernel() -> None:
    assert (
        kl012(LOGITS.replace("mask=cols < n_cols)\n    tl.store", "mask=cols < n_cols)  # noqa: KL012\n    tl.store"))
        == []
    )


def test_known_small_tensor_at_every_launch_is_silent_unknown_is_not() -> None:
    small = LOGITS + "def go():\n    t = torch.empty((64, 128))\n    ce[(64,)](t, t.stride(0), 128, BLOCK=128)\n"
    assert kl012("import torch\n" + small) == []
    unknown = LOGITS + "def go(t):\n    ce[(64,)](t, t.stride(0), 128, BLOCK=128)\n"
    assert len(kl012("import torch\n" + unknown)) == 1


def test_row_counts_are_not_element_offsets() -> None:
    source = LOGITS.replace("row * stride", "row * n_rows").replace("stride, n_cols", "n_rows, n_cols")
    assert kl012(source) == []


def test_batch_and_head_strides_report_the_scalar_products_only() -> None:
    found = kl012("""
        import triton
        import triton.language as tl
        @triton.jit
        def k(q_ptr, stride_b, stride_h, stride_s, D: tl.constexpr, BLOCK: tl.constexpr):
            pid_b, pid_h, pid_s = tl.program_id(0), tl.program_id(1), tl.program_id(2)
            rows = pid_s * BLOCK + tl.arange(0, BLOCK)
            d = tl.arange(0, D)
            base = q_ptr + pid_b * stride_b + pid_h.to(tl.int64) * stride_h
            tl.store(base + rows[:, None] * stride_s + d[None, :], 0.0)
        """)
    assert [(f.span.line, f.span.column) for f in found] == [(9, 20)]
    assert "`pid_b * stride_b`" in found[0].message and "more such" not in found[0].message


ROPE = """
import triton
import triton.language as tl
@triton.jit
def rope(q_ptr, row_stride, head_stride, D: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    head = tl.program_id(1)
    d = tl.arange(0, D)
    ptrs = q_ptr + row * row_stride + head * head_stride + d
    tl.store(ptrs, tl.load(ptrs) * 2)
def run(q):
    rope[(q.shape[0] * q.shape[1], q.shape[2])](q, q.stride(1), q.stride(2), D=64)
"""


def test_a_head_product_inside_a_promoted_row_is_silent_an_outer_one_is_not() -> None:
    assert kl012(ROPE) == []
    swapped = kl012(ROPE.replace("q.stride(1), q.stride(2)", "q.stride(2), q.stride(1)"))
    assert [(f.span.line, f.span.column) for f in swapped] == [(9, 39)]
    assert "`head * head_stride`" in swapped[0].message
    unknown = kl012(ROPE.replace("q.stride(1), q.stride(2)", "q.stride(1), head_dim"))
    assert [(f.span.line, f.span.column) for f in unknown] == [(9, 39)]


LOSS = """
import triton
import triton.language as tl
@triton.jit
def bwd(dloss_ptr, stride_b, stride_l, D: tl.constexpr):
    b, l = tl.program_id(0), tl.program_id(1)
    tl.store(dloss_ptr + b * stride_b + l * stride_l, 0.0)
"""


def test_one_element_per_program_is_silent_a_row_per_program_is_not() -> None:
    assert kl012(LOSS) == []
    row = kl012(LOSS.replace("l * stride_l, 0.0)", "l * stride_l + tl.arange(0, D), 0.0)"))
    assert [(f.span.line, f.span.column) for f in row] == [(7, 26)]


CACHE = """
import triton
import triton.language as tl
@triton.jit
def write_kv_cache(kv_ptr, kv_cache_ptr, slot_ptr, stride_tok, D: tl.constexpr):
    tok = tl.program_id(0)
    d = tl.arange(0, D)
    tl.store(kv_cache_ptr + tl.load(slot_ptr + tok) * D + d, tl.load(kv_ptr + tok * stride_tok + d))
"""


def test_a_kernel_that_names_its_cache_reports_only_the_cache() -> None:
    assert kl012(CACHE) == []
    unnamed = kl012(CACHE.replace("kv_cache_ptr", "out_ptr"))
    assert [(f.span.line, f.span.column) for f in unnamed] == [(8, 74)]
    assert "`kv_ptr` names a tensor" in unnamed[0].message


def test_rotary_position_embeddings_are_no_embedding_table() -> None:
    source = LOGITS.replace("logits_ptr", "x_ptr").replace("def ce(", "def apply_rotary_pos_emb(")
    assert kl012(source) == []
    assert kl012(source.replace("apply_rotary_pos_emb", "rope_emb")) == []
    table = kl012(source.replace("apply_rotary_pos_emb", "embedding_rows"))
    assert [(f.span.line, f.span.column) for f in table] == [(8, 25)]
    # `rope` as a word only: `property_emb` is an embedding table.
    assert [(f.span.line, f.span.column) for f in kl012(source.replace("apply_rotary_pos_emb", "property_emb"))] == [
        (8, 25)
    ]


KERNELBENCH = (
    "import torch\n"
    + LOGITS
    + """
class ModelNew(torch.nn.Module):
    def forward(self, logits):
        ce[(logits.shape[0],)](logits, logits.stride(0), logits.shape[1], BLOCK=1024)
        return logits


rows, vocab = ROWS, 1024


def get_inputs():
    return [torch.randn(rows, vocab)]
"""
)


def test_a_kernelbench_file_whose_shapes_stay_under_2_31_elements_is_silent() -> None:
    """Issue 25: the file's own shapes decide; huge ones still report."""
    assert kl012(KERNELBENCH.replace("ROWS", "4096")) == []
    assert [f.span.line for f in kl012(KERNELBENCH.replace("ROWS", "4194304"))] == [9]
