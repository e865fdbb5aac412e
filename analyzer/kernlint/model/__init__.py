"""The facts rules ask about, built once per file from the libcst tree.

One traversal (collect.py) records functions, classes, imports, Triton
kernels and their launch sites; the questions are grouped by the kind of
fact, one module each, so a newcomer finds where a fact is computed from
the file names alone:

- syntax.py: libcst shapes (literals, keyword arguments, views, walking
  through per-class child readers, an iterative visitor);
- positions.py: lines and spans from lean code generation, only for the
  nodes asked about (a node's own code, else its innermost statement's,
  else its top-level statement's), checked against PositionProvider by
  tests/test_model_traversal.py, and source order without any (SourceOrder);
- facts.py: the data (FunctionInfo, Kernel, Launch, ModuleTensor, DtypeFact...);
- base.py: positions, names, scopes, the call graph, assigned values;
- host.py: hot paths, module tensors and parameter lifecycles, bindings,
  one-time work and caches;
- kernel.py: what a @triton.jit body loads, which tl calls it makes, which
  constexprs size its tiles;
- dtypes.py: dtypes of host tensors and kernel values, explicit conversions;
- offsets.py: how each pointer offset is built (program ids, aranges, runtime
  strides, int64 promotion), values of constexpr expressions, tile dimensions.
- kernel_loops.py: loops of kernel bodies, the K loop of a tl.dot and the
  loads that feed it;
- kernel_tiles.py: which of those loads are masked on K, the program id's
  tile order, passes over the same row.
- products.py: multiply-add products of two loaded operands in kernels
  without tl.dot (a GEMM or convolution on the CUDA cores).
- host_values.py: Python numbers versus tensors, values fixed for a module's
  lifetime, tensors built from them on every call, names written in place,
  calls whose tensors escape or are written in place;
- attention.py: matmul and softmax spellings, the attention chain matmul ->
  softmax -> matmul.
- layout.py: transposing views, round-trip copies, what a copy feeds, and
  whether a tensor is a weight or an activation (KL002);
- guards.py: kernel code under `if <constexpr>:` and what the host passes
  for that constexpr (KL001);
- tuning.py: whether a kernel is autotuned (also by a project's wrapper of
  the autotuner), and how a launch argument is decided: fixed, per dtype,
  a problem dimension, or chosen per problem (KL003).
- host_flow.py: loops over data dimensions, tensors versus Python numbers;
- epilogues.py: the elementwise ops that follow a GEMM's result (def-use);
- torch_api.py: tables of PyTorch names (numbers, non-tensors, dtypes).

Rules receive one FileModel and ask it; they never walk the tree for a fact
another rule also needs. A kernel or helper the file imports from another
module of its project (kernlint.project) comes with that module's model:
questions about a kernel's body (`@kernel_fact` methods) are answered there
(`home_of`), so rules ask the same way about local and imported kernels.

What libcst gives and what the model uses of it (issue 24; numbers from
flag-gems, 1,364 files, where libcst's parse alone takes about 12 s on the
2-core machine):

- Used: libcst's native parser (`parse_module`, the default since libcst
  1.0; it reads Python 3.0-3.13 syntax whatever Python runs kernlint, so
  no target version is configured) and its node classes, read directly by
  the model and the rules. Its code generation (`_codegen` with a
  CodegenState that only counts characters) gives positions: exactly
  PositionProvider's ranges, for the reported nodes only.
- Not used on the lint path: MetadataWrapper and its providers
  (PositionProvider, ScopeProvider, ParentNodeProvider). The wrapper
  deep-copies the tree unless told not to, and resolving any provider
  visits every node and generates the whole file's code: about a parse's
  cost again per file, where kernlint needs positions for a handful of
  nodes; PositionProvider stays the reference its positions are tested
  against. libcst's visitor (`node.visit`, `CSTVisitor`, `node.children`)
  rebuilds every node's children through Python dispatch and recurses once
  per level, about a parse per traversal and a RecursionError on a
  10,000-term chain; syntax.visit and syntax.walk read each class's fields
  through readers made once and keep their own stack. Matchers
  (`libcst.matchers.matches`) test a node against a pattern by walking the
  pattern's fields with isinstance checks on libcst's abstract classes;
  the model asks its shape questions (a call to `tl.dot`, a `.t()` view)
  about a million times on flag-gems, where a matcher costs about 100
  times the exact-type test it replaces (6-10 us against 0.1 us for
  `tl.dot(...)`), so the model keeps plain attribute tests (names.dotted,
  syntax.call_name).
- libcst checks every node it builds; the parser's own output is valid by
  construction, so source.parse skips those checks while it parses (about
  a tenth of a parse).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from kernlint.model.dtypes import DtypeFacts
from kernlint.model.epilogues import EpilogueFacts
from kernlint.model.facts import (
    ClassInfo,
    ConstexprValues,
    Conversion,
    DtypeFact,
    FunctionInfo,
    Kernel,
    KernelParam,
    Launch,
    ModuleTensor,
    ParameterSource,
)
from kernlint.model.guards import GuardFacts
from kernlint.model.kernel_tiles import KernelTileFacts
from kernlint.model.layout import LayoutFacts
from kernlint.model.shapes import ShapeFacts
from kernlint.model.summed import SummedLoadFacts
from kernlint.model.tuning import TuningFacts

if TYPE_CHECKING:
    from kernlint.project import Project

__all__ = [
    "ClassInfo",
    "ConstexprValues",
    "Conversion",
    "DtypeFact",
    "FileModel",
    "FunctionInfo",
    "Kernel",
    "KernelParam",
    "Launch",
    "ModuleTensor",
    "ParameterSource",
    "build_model",
]


class FileModel(
    DtypeFacts,
    SummedLoadFacts,
    KernelTileFacts,
    ShapeFacts,
    EpilogueFacts,
    LayoutFacts,
    GuardFacts,
    TuningFacts,
):
    """Everything kernlint knows about one file. Built by `build_model`."""


def build_model(
    path: str, source: str, module: cst.Module, project: Project | None = None, sm_count: int | None = None
) -> FileModel:
    """`project`: where kernels the file imports from other modules are
    found (kernlint.project); None models the file alone. `sm_count`: the
    SM count of the GPU the estimates are for."""
    return FileModel(path, source, module, project, sm_count)
