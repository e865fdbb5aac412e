"""The facts rules ask about, built once per file from the libcst tree.

One traversal (collect.py) records functions, classes, imports, Triton
kernels and their launch sites; the questions are grouped by the kind of
fact, one module each, so a newcomer finds where a fact is computed from
the file names alone:

- syntax.py: libcst shapes (literals, keyword arguments, views, walking);
- facts.py: the data (FunctionInfo, Kernel, Launch, ModuleTensor, DtypeFact...);
- base.py: positions, names, scopes, the call graph, assigned values;
- host.py: hot paths, module tensors and parameter lifecycles, bindings,
  one-time work and caches;
- kernel.py: what a @triton.jit body loads, which tl calls it makes, which
  constexprs size its tiles;
- dtypes.py: dtypes of host tensors and kernel values, explicit conversions;
- host_flow.py: loops over data dimensions, tensors versus Python numbers,
  the elementwise ops that follow a GEMM's result (def-use).

Rules receive one FileModel and ask it; they never walk the tree for a fact
another rule also needs.
"""

from __future__ import annotations

import libcst as cst

from kernlint.model.dtypes import DtypeFacts
from kernlint.model.host_flow import HostFlowFacts
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

__all__ = [
    "ClassInfo", "ConstexprValues", "Conversion", "DtypeFact", "FileModel", "FunctionInfo", "Kernel", "KernelParam",
    "Launch", "ModuleTensor", "ParameterSource", "build_model",
]


class FileModel(DtypeFacts, HostFlowFacts):
    """Everything kernlint knows about one file. Built by `build_model`."""


def build_model(path: str, source: str, module: cst.Module) -> FileModel:
    return FileModel(path, source, module)
