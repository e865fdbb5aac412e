"""What kernlint knows of PyTorch's API by name: which functions, methods
and attributes give Python numbers rather than tensors, which never make a
tensor, which allocate an output of a given size, which spell a dtype.
Tables only; the host-side facts (host_flow.py, epilogues.py) read them.
"""

from __future__ import annotations

import re

# Tensor methods and attributes that give Python numbers (or tuples of them).
NUMBER_METHODS = frozenset(
    {
        "size",
        "numel",
        "nelement",
        "dim",
        "ndimension",
        "stride",
        "element_size",
        "data_ptr",
        "get_device",
        "item",
        "is_contiguous",
        "is_floating_point",
        "is_complex",
        "storage_offset",
        "tolist",
    }
)

NUMBER_ATTRIBUTES = frozenset({"shape", "ndim", "is_cuda", "dtype", "device", "requires_grad", "itemsize"})

NUMBER_FUNCTIONS = frozenset(
    {
        "len",
        "int",
        "float",
        "bool",
        "min",
        "max",
        "abs",
        "round",
        "sum",
        "triton.cdiv",
        "triton.next_power_of_2",
        "math.ceil",
        "math.floor",
        "math.prod",
        "math.sqrt",
        "math.log2",
        "torch.numel",
        "isinstance",
        "hasattr",
        "callable",
    }
)

# torch names that are not tensor operations.
NOT_TENSOR_PREFIXES = (
    "torch.cuda.",
    "torch.backends.",
    "torch.distributed.",
    "torch.testing.",
    "torch._dynamo.",
    "torch.compiler.",
    "torch.jit.",
    "torch.library.",
    "torch.utils.",
)

NOT_TENSOR_FUNCTIONS = frozenset(
    {
        "torch.is_tensor",
        "torch.is_grad_enabled",
        "torch.device",
        "torch.dtype",
        "torch.Size",
        "torch.finfo",
        "torch.iinfo",
        "torch.no_grad",
        "torch.enable_grad",
        "torch.inference_mode",
        "torch.manual_seed",
        "torch.get_default_dtype",
        "torch.set_grad_enabled",
        "torch.is_floating_point",
        "torch.numel",
        "torch.compile",
        "torch.autocast",
        "torch.is_autocast_enabled",
        "torch.get_autocast_gpu_dtype",
        "torch.result_type",
        "torch.promote_types",
        "torch.can_cast",
        "torch.is_complex",
        "torch.is_nonzero",
        # Python bools about the interpreter's mode, not about a tensor's value.
        "torch.is_inference_mode_enabled",
        "torch.is_inference",
        "torch.is_anomaly_enabled",
        "torch.is_anomaly_check_nan_enabled",
        "torch.are_deterministic_algorithms_enabled",
        "torch.is_deterministic_algorithms_warn_only_enabled",
        "torch.is_warn_always_enabled",
        "torch.is_autocast_cpu_enabled",
        "torch.is_storage",
        "torch.is_conj",
        "torch.get_num_threads",
    }
)

FREE_ATTRIBUTES = frozenset({"T", "mT", "data"})

TORCH_DTYPE = re.compile(r"^torch\.(?:float|half|bfloat|double|int|uint|long|short|bool|float8)")

# Iterating these walks dimension 0 of a tensor, one slice per step.
UNBINDING = frozenset({"unbind", "split", "tensor_split"})

# Methods that return an nn module itself, moved or converted (`nn.GRU(...).half()`, `.to(device)`).
MODULE_MOVES = frozenset({"half", "float", "double", "bfloat16", "cuda", "to", "train", "eval", "requires_grad_"})

# Methods that only tensors (and numpy arrays) have: their receiver is one.
TENSOR_ONLY_METHODS = frozenset(
    {
        "any",
        "all",
        "isnan",
        "isinf",
        "isfinite",
        "nonzero",
        "sum",
        "mean",
        "amax",
        "amin",
        "norm",
        "count_nonzero",
        "eq",
        "ne",
        "gt",
        "lt",
        "ge",
        "le",
        "allclose",
        "equal",
        "argmax",
        "argmin",
        "std",
        "var",
    }
)

# Calls that allocate a tensor whose size is their leading positional
# arguments (or `size=`): a host value there sizes an output.
ALLOCATION_FUNCTIONS = frozenset(
    {
        "torch.empty",
        "torch.zeros",
        "torch.ones",
        "torch.empty_strided",
        "torch.arange",
        "torch.rand",
        "torch.randn",
    }
)

ALLOCATION_METHODS = frozenset({"new_empty", "new_zeros", "new_ones", "resize_"})

# These take the size first and a value after it.
ALLOCATION_WITH_VALUE = frozenset({"torch.full", "new_full", "torch.randint"})

# Tests that say a value may arrive as a Python number or as a tensor.
TYPE_TESTS = frozenset({"isinstance", "torch.is_tensor"})

CAST_METHODS = frozenset({"half", "float", "bfloat16", "double"})
