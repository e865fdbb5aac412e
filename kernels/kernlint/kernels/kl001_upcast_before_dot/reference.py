"""PyTorch reference (KernelBench form): the library's int8 linear problem.

`Model`, `get_inputs`, `get_init_inputs`, `SHAPES` and `INTERPRET_SHAPES`
are those of `kernlint.kernels.int8_problem`, shared by every pair.
"""

from kernlint.kernels.int8_problem import (
    INTERPRET_SHAPES,
    SHAPES,
    Model,
    get_init_inputs,
    get_inputs,
)

__all__ = ["INTERPRET_SHAPES", "SHAPES", "Model", "get_init_inputs", "get_inputs"]
