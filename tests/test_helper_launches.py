"""A launch moved into a helper that writes into the caller's buffer and returns nothing
(`out = torch.empty_like(x)`, then `_launch(x, out, n)`) is the same program as the launch written in
forward: KL022 and KL026, which follow the tensor a launch writes through the calling function, find the
same defect with the same estimate in both spellings (FileModel.launches_in)."""

from __future__ import annotations

import textwrap

from kernlint.engine import Settings, lint_source
from kernlint.model import build_model
from kernlint.source import parse

# A per-element loss written by a Triton kernel, then averaged in torch: KL022.
LOSS = """
import torch
import triton
import triton.language as tl
@triton.jit
def sq_diff(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    d = tl.load(a_ptr + offs, mask=offs < n) - tl.load(b_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, d * d, mask=offs < n)
{helper}
class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        n = a.numel()
        out = torch.empty_like(a)
        {launch}
        return torch.mean(out)
def get_inputs():
    return [torch.randn(4096, 4096), torch.randn(4096, 4096)]
def get_init_inputs():
    return []
"""
LOSS_DIRECT = LOSS.format(helper="", launch="sq_diff[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)")
LOSS_HELPER = LOSS.format(
    helper=textwrap.dedent(
        """
        def _launch(a, b, out, n):
            sq_diff[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
        """
    ),
    launch="_launch(a, b, out, n)",
)
# The same helper returning the buffer it was handed, its value bound again.
LOSS_RETURNING = LOSS.format(
    helper=textwrap.dedent(
        """
        def _launch(a, b, out, n):
            sq_diff[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
            return out
        """
    ),
    launch="out = _launch(a, b, out, n)",
)


def _findings(source: str, code: str) -> list:
    result = lint_source("model_new.py", textwrap.dedent(source), Settings())
    return [f for f in result.findings if f.code == code]


def test_kl022_finds_the_torch_mean_after_a_launch_in_a_helper_with_the_same_estimate():
    direct, helper = _findings(LOSS_DIRECT, "KL022"), _findings(LOSS_HELPER, "KL022")
    assert len(direct) == 1 and len(helper) == 1
    assert "`sq_diff`" in direct[0].message and "launched by" not in direct[0].message
    assert "`sq_diff` (launched by `_launch`)" in helper[0].message
    # The finding stands at the helper's call in forward, and the estimate is the same program's.
    assert helper[0].span.line == LOSS_HELPER.splitlines().index("        _launch(a, b, out, n)") + 1
    assert direct[0].expected_speedup["for_this_file"]["kernelbench"] > 1.2
    for mode in ("kernelbench", "eager", "graph"):
        assert helper[0].expected_speedup["for_this_file"][mode] == direct[0].expected_speedup["for_this_file"][mode]


def test_kl022_reports_a_helper_returning_its_buffer_once():
    (finding,) = _findings(LOSS_RETURNING, "KL022")
    assert "`sq_diff` (launched by `_launch`)" in finding.message


def test_launches_in_lifts_a_helper_launch_to_its_call_with_the_callers_arguments():
    source = textwrap.dedent(LOSS_HELPER)
    model = build_model("model_new.py", source, parse(source))
    forward = model.function("ModelNew.forward")
    assert forward is not None
    (launch,) = model.launches_in(forward)
    assert launch.helper_launch is not None and launch.helper_launch.caller.name == "_launch"
    assert launch.caller is forward and model.code(launch.node) == "_launch(a, b, out, n)"
    assert {param: model.code(value) for param, value in launch.arguments.items()} == {
        "a_ptr": "a",
        "b_ptr": "b",
        "out_ptr": "out",
        "n": "n",
        "BLOCK": "1024",
    }
    assert model.launch_output(launch) == "out"
    # The helper's own launch stays where it is written.
    assert [x.caller.name for x in model.launches] == ["_launch"]


def test_a_helper_handed_self_reads_the_callers_attributes():
    """`_launch(self, a, out, n)` launching with `self.scale`: the lifted launch's argument is the caller's own
    `self.scale` (a module's parameter, which KL026 looks for), not dropped as a helper-local name."""
    source = textwrap.dedent(
        LOSS.format(
            helper=textwrap.dedent(
                """
                def _launch(self, a, out, n):
                    sq_diff[(triton.cdiv(n, 1024),)](a, self.scale, out, n, BLOCK=1024)
                """
            ),
            launch="_launch(self, a, out, n)",
        )
    )
    model = build_model("model_new.py", source, parse(source))
    forward = model.function("ModelNew.forward")
    assert forward is not None
    (launch,) = model.launches_in(forward)
    assert {param: model.code(value) for param, value in launch.arguments.items()} == {
        "a_ptr": "a",
        "b_ptr": "self.scale",
        "out_ptr": "out",
        "n": "n",
        "BLOCK": "1024",
    }


def test_launches_in_leaves_a_helper_that_returns_a_tensor_of_its_own():
    source = textwrap.dedent(LOSS_RETURNING).replace("    return out\n", "    return out + 0\n")
    model = build_model("model_new.py", source, parse(source))
    forward = model.function("ModelNew.forward")
    assert forward is not None and model.launches_in(forward) == []
