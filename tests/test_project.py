"""The project pre-pass: kernels another module of the tree imports, and the
dependency digest a result cache must key on."""

from __future__ import annotations

from kernlint.project import ProjectIndex

KERNELS = """
import triton
import triton.language as tl
from .tuning import libtuner

@libtuner(configs=[], key=["M"])
@triton.jit
def mm(a_ptr, M, BLOCK_M: tl.constexpr):
    acc = tl.dot(tl.load(a_ptr), tl.load(a_ptr))

@triton.jit
def add(x_ptr, BLOCK: tl.constexpr):
    pass

def helper(x):
    return x
"""

OPS = """
from .kernels import mm, add as plus
def run(a):
    mm[(1,)](a, 1)
"""


def test_a_launch_sees_the_kernel_it_imports() -> None:
    index = ProjectIndex.build({"root/pkg/kernels.py": KERNELS, "root/pkg/ops.py": OPS}, "root")
    mm = index.imported_kernel("root/pkg/ops.py", "mm")
    plus = index.imported_kernel("root/pkg/ops.py", "plus")
    assert mm is not None and (mm.constexprs, mm.autotuned, mm.uses_dot) == (("BLOCK_M",), True, True)
    assert plus is not None and (plus.name, plus.autotuned, plus.uses_dot) == ("add", False, False)
    assert index.imported_kernel("root/pkg/ops.py", "run") is None
    assert index.summary("pkg.kernels").functions == ("helper",)


def test_the_digest_follows_summaries_not_text() -> None:
    base = ProjectIndex.build({"r/p/kernels.py": KERNELS, "r/p/ops.py": OPS}, "r")
    comment = ProjectIndex.build({"r/p/kernels.py": KERNELS + "# a comment\n", "r/p/ops.py": OPS}, "r")
    tuned = ProjectIndex.build(
        {
            "r/p/kernels.py": KERNELS.replace(
                "@triton.jit\ndef add", "@triton.autotune(configs=[], key=[])\n@triton.jit\ndef add"
            ),
            "r/p/ops.py": OPS,
        },
        "r",
    )
    digest = base.dependency_digest("r/p/ops.py")
    assert comment.dependency_digest("r/p/ops.py") == digest
    assert tuned.dependency_digest("r/p/ops.py") != digest
