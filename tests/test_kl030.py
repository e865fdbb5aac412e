"""KL030 uncoalesced-load: a loop that walks the elements between the lanes (a pool's window) is not a
sector per lane."""

import textwrap

from kernlint.engine import lint_source
from kernlint.settings import Settings

POOL = """
import torch, triton
import triton.language as tl
@triton.jit
def pool(x_ptr, y_ptr, W, OW, S, KS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    ow = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for kh in range(KS):
        for kw in range(KS):
            acc += tl.load(x_ptr + (row * S + kh) * W + ow * S + kw, mask=ow < OW, other=0.0)
    tl.store(y_ptr + row * OW + ow, acc / (KS * KS), mask=ow < OW)
class ModelNew(torch.nn.Module):
    def forward(self, x):
        H, W = x.shape
        y = torch.empty(H // 16, W // 16, device=x.device)
        pool[(H // 16, triton.cdiv(W // 16, 256))](x, y, W, W // 16, 16, KS=WINDOW, BLOCK=256)
        return y
def get_inputs():
    return [torch.randn(8192, 8192)]
def get_init_inputs():
    return []
"""


def lint(source: str):
    result = lint_source("example.py", textwrap.dedent(source), Settings(select=frozenset({"KL030"})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return list(result.findings)


def test_a_window_as_wide_as_the_stride_reads_every_element_between_the_lanes_and_is_silent() -> None:
    assert lint(POOL.replace("KS=WINDOW", "KS=16")) == []
    assert lint(POOL.replace("KS=WINDOW", "KS=24")) == []


def test_a_window_narrower_than_the_stride_leaves_each_lane_a_sector_of_its_own() -> None:
    (found,) = lint(POOL.replace("KS=WINDOW", "KS=4"))
    assert (found.span.line, found.message.split(" (")[0]) == (
        17,
        "`pool` loads 268 MB with every vector lane `S` = 16 elements from the next",
    )
