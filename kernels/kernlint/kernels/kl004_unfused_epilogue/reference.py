"""PyTorch reference (KernelBench form): the library's int8 linear problem, shared by every pair."""

from kernlint.kernels.int8_problem import *  # noqa: F403  (Model, get_inputs, get_init_inputs, SHAPES, INTERPRET_SHAPES)
