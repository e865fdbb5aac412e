"""Dtype facts: what is known of a host tensor's or a kernel value's dtype
and why, and which expressions are explicit conversions. Dtypes join the two
sides: a `tl.load`'s dtype is the host dtype of the tensor its launches bind
to the pointer.
"""

from __future__ import annotations

import libcst as cst
from kernlint.model.facts import TL, Conversion, DtypeFact, FunctionInfo, Kernel, Launch
from kernlint.model.host import HostFacts
from kernlint.model.kernel import KernelFacts
from kernlint.model.syntax import call_name, is_literal, keyword, positional
from kernlint.names import dotted

# torch dtype spellings -> the canonical name kernlint reports.
TORCH_DTYPES = {
    "int8": "int8",
    "uint8": "uint8",
    "int16": "int16",
    "short": "int16",
    "int32": "int32",
    "int": "int32",
    "int64": "int64",
    "long": "int64",
    "float16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "float32": "float32",
    "float": "float32",
    "float64": "float64",
    "double": "float64",
    "float8_e4m3fn": "float8_e4m3fn",
    "float8_e5m2": "float8_e5m2",
    "float8_e4m3fnuz": "float8_e4m3fnuz",
    "float8_e5m2fnuz": "float8_e5m2fnuz",
    "bool": "bool",
}

TRITON_DTYPES = {
    "int8": "int8",
    "uint8": "uint8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "float16": "float16",
    "bfloat16": "bfloat16",
    "float32": "float32",
    "float64": "float64",
    "float8e4nv": "float8_e4m3fn",
    "float8e5": "float8_e5m2",
    "float8e4b15": "float8e4b15",
    "float8e4b8": "float8_e4m3fnuz",
    "float8e5b16": "float8_e5m2fnuz",
}

# Dtypes narrower than fp32 that tensor cores multiply natively.
NARROW_DTYPES = frozenset(
    {
        "int8",
        "uint8",
        "float16",
        "bfloat16",
        "float8_e4m3fn",
        "float8_e5m2",
        "float8_e4m3fnuz",
        "float8_e5m2fnuz",
        "float8e4b15",
    }
)

METHOD_CASTS = {
    "float": "float32",
    "half": "float16",
    "bfloat16": "bfloat16",
    "double": "float64",
    "int": "int32",
    "long": "int64",
    "char": "int8",
    "byte": "uint8",
    "short": "int16",
}

# Tensor methods whose result has the receiver's dtype.
DTYPE_PRESERVING = frozenset(
    {
        "t",
        "contiguous",
        "transpose",
        "permute",
        "view",
        "reshape",
        "clone",
        "detach",
        "cuda",
        "cpu",
        "abs",
        "neg",
        "flatten",
        "squeeze",
        "unsqueeze",
        "expand",
        "narrow",
        "requires_grad_",
        "mul",
        "add",
        "sub",
        "div",
        "clamp",
        "round",
        "sign",
        "T",
        "mT",
        "data",
    }
)

# torch factories whose default dtype is float32 when none is given.
FLOAT_FACTORIES = frozenset({"randn", "rand", "empty", "zeros", "ones", "full", "tensor", "linspace"})

# Tensor methods that keep values and dtype (only the layout or metadata).
LAYOUT_PRESERVING = frozenset(
    {
        "t",
        "contiguous",
        "transpose",
        "permute",
        "view",
        "reshape",
        "clone",
        "detach",
        "flatten",
        "squeeze",
        "unsqueeze",
        "expand",
        "narrow",
        "swapaxes",
        "swapdims",
        "movedim",
    }
)

# Short names for messages; fp8 formats name their variant.
SHORT_DTYPES = {
    "float16": "fp16",
    "bfloat16": "bf16",
    "float8_e4m3fn": "fp8 (e4m3)",
    "float8_e5m2": "fp8 (e5m2)",
    "float8_e4m3fnuz": "fp8 (e4m3fnuz)",
    "float8_e5m2fnuz": "fp8 (e5m2fnuz)",
    "float8e4b15": "fp8 (e4b15)",
}


def short_dtype(dtype: str, variant: bool = True) -> str:
    """ "float16" -> "fp16"; "float8_e4m3fn" -> "fp8 (e4m3)", or "fp8" without
    the variant."""
    short = SHORT_DTYPES.get(dtype, dtype)
    return short if variant else short.split(" ")[0]


LAYOUT_VIEWS = frozenset({"t", "transpose", "permute", "mT", "T", "swapaxes", "swapdims", "movedim"})


class DtypeFacts(HostFacts, KernelFacts):
    def dtype_of(self, node: cst.BaseExpression, scope: FunctionInfo, depth: int = 0) -> DtypeFact | None:
        """What is known of the dtype of a host (torch) expression."""
        if depth > 12:
            return None
        if isinstance(node, cst.Name):
            fact = self._asserted_dtype(scope, node.value)
            if fact is not None:
                return fact
            value = self.assigned_value(scope, node.value, before=node)
            if value is not None:
                return self.dtype_of(value, scope, depth + 1)
            facts = [self.dtype_of(arg, caller, depth + 1) for arg, caller in self.bindings(scope, node.value)]
            known = [f for f in facts if f is not None]
            if known and all(f.dtype == known[0].dtype for f in known):
                return known[0]
            element = self.get_inputs_element(scope, node.value)
            if element is not None:
                get_inputs = self.function("get_inputs")
                assert get_inputs is not None
                fact = self.dtype_of(element, get_inputs, depth + 1)
                if fact is not None:
                    return DtypeFact(fact.dtype, f"get_inputs() at line {self.line_of(element)}", "get_inputs")
            return None
        tensor = self.module_tensor(node, scope)
        if tensor is not None:
            return self.dtype_of(tensor.value, tensor.scope, depth + 1)
        if isinstance(node, cst.Attribute) and node.attr.value in DTYPE_PRESERVING:
            return self.dtype_of(node.value, scope, depth + 1)
        if isinstance(node, cst.Subscript):
            return self.dtype_of(node.value, scope, depth + 1)
        if isinstance(node, cst.UnaryOperation):
            return self.dtype_of(node.expression, scope, depth + 1)
        if isinstance(node, cst.BinaryOperation):
            for side, other in ((node.left, node.right), (node.right, node.left)):
                if is_literal(other):
                    return self.dtype_of(side, scope, depth + 1)
            return None
        if isinstance(node, cst.Call):
            return self._call_dtype(node, scope, depth)
        return None

    def torch_dtype(self, node: cst.BaseExpression | None) -> str | None:
        """`torch.int8` (any alias) -> "int8"."""
        if node is None:
            return None
        name = self.qualname(node)
        if name and name.startswith("torch."):
            return TORCH_DTYPES.get(name[len("torch.") :])
        return None

    def triton_dtype(self, node: cst.BaseExpression | None) -> str | None:
        """`tl.float32` (any alias) -> "float32"."""
        if node is None:
            return None
        name = self.qualname(node)
        if name and name.startswith(TL + "."):
            return TRITON_DTYPES.get(name[len(TL) + 1 :])
        if isinstance(node, cst.SimpleString):
            # tl.cast(x, "fp32") is not valid; be strict.
            return None
        return None

    def _asserted_dtype(self, scope: FunctionInfo, name: str) -> DtypeFact | None:
        for statement in scope.asserts:
            test = statement.test
            if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
                continue
            target = test.comparisons[0]
            if not isinstance(target.operator, (cst.Equal, cst.Is)):
                continue
            for left, right in ((test.left, target.comparator), (target.comparator, test.left)):
                if (
                    isinstance(left, cst.Attribute)
                    and left.attr.value == "dtype"
                    and isinstance(left.value, cst.Name)
                    and left.value.value == name
                ):
                    dtype = self.torch_dtype(right)
                    if dtype is not None:
                        return DtypeFact(dtype, f"assert at line {self.line_of(statement)}", "assert")
        return None

    def _call_dtype(self, call: cst.Call, scope: FunctionInfo, depth: int) -> DtypeFact | None:
        name = self.qualname(call.func)
        explicit = self.torch_dtype(keyword(call, "dtype"))
        if name in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            data = next(iter(positional(call)), None) or keyword(call, "data")
            return self.dtype_of(data, scope, depth + 1) if data is not None else None
        if (
            name
            and name.startswith("torch.")
            and not isinstance(call.func, cst.Attribute)
            or (name and name.count(".") == 1 and name.startswith("torch."))
        ):
            factory = name.split(".")[-1]
            if explicit is not None:
                return DtypeFact(
                    explicit, f"created with dtype=torch.{explicit} at line {self.line_of(call)}", "creation"
                )
            if factory.endswith("_like") and positional(call):
                return self.dtype_of(positional(call)[0], scope, depth + 1)
            if factory == "randint":
                return DtypeFact("int64", f"torch.randint default at line {self.line_of(call)}", "creation")
            if factory in FLOAT_FACTORIES and factory != "tensor":
                return DtypeFact("float32", f"torch.{factory} default at line {self.line_of(call)}", "creation")
            return None
        method = call_name(call)
        if method is None:
            return None
        receiver = call.func.value  # type: ignore[attr-defined]
        if method in METHOD_CASTS and not call.args:
            return DtypeFact(METHOD_CASTS[method], f".{method}() at line {self.line_of(call)}", "cast")
        if method in ("to", "type"):
            target = explicit
            for arg in positional(call):
                target = target or self.torch_dtype(arg)
            if target is not None:
                return DtypeFact(target, f".{method}(torch.{target}) at line {self.line_of(call)}", "cast")
            return self.dtype_of(receiver, scope, depth + 1)
        if method in DTYPE_PRESERVING:
            return self.dtype_of(receiver, scope, depth + 1)
        return None

    def torch_cast(self, node: cst.BaseExpression, scope: FunctionInfo, depth: int = 0) -> Conversion | None:
        """If a host expression is an explicit dtype conversion (`x.float()`,
        `x.to(torch.float32)`, `x.to(dtype=...)`, `x.type(torch.float32)`),
        seen through a local name or under layout views (`x.float().t()`):
        the target dtype, the conversion call and the converted tensor."""
        if depth > 12:
            return None
        if isinstance(node, cst.Name):
            value = self.assigned_value(scope, node.value, before=node)
            return None if value is None or value is node else self.torch_cast(value, scope, depth + 1)
        if isinstance(node, cst.Attribute) and node.attr.value in ("T", "mT", "H", "mH"):
            return self.torch_cast(node.value, scope, depth + 1)
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            return None
        receiver = node.func.value
        head = dotted(receiver)
        if (
            head is not None
            and head.split(".")[0] in self.imports.aliases
            and (self.qualname(receiver) or "").startswith("torch")
        ):
            return None  # `torch.t(x)`, `torch.float(...)`: a module function, not a tensor method
        method = node.func.attr.value
        if method in METHOD_CASTS and not node.args:
            return Conversion(METHOD_CASTS[method], node, receiver)
        if method in ("to", "type"):
            target = self.torch_dtype(keyword(node, "dtype"))
            for arg in positional(node):
                target = target or self.torch_dtype(arg)
            return Conversion(target, node, receiver) if target is not None else None
        if method in LAYOUT_PRESERVING:
            return self.torch_cast(receiver, scope, depth + 1)
        return None

    def kernel_cast(self, kernel: Kernel, node: cst.BaseExpression, depth: int = 0) -> Conversion | None:
        """If a kernel value is an explicit conversion (`tl.cast(x, tl.float32)`,
        `x.to(tl.float32)`, seen through names): the target dtype (None when
        not a literal dtype), the conversion call and the converted value.
        Bitcasts (`bitcast=True`) reinterpret bits and are not conversions."""
        if depth > 12:
            return None
        # Exact types: libcst's node classes have no subclasses, and a failing
        # isinstance on them runs ABCMeta's check in Python.
        if type(node) is cst.Name:
            value = self.assigned_value(kernel.function, node.value, before=node)
            return None if value is None or value is node else self.kernel_cast(kernel, value, depth + 1)
        if type(node) is not cst.Call:
            return None
        bitcast = keyword(node, "bitcast")
        if bitcast is not None and not (isinstance(bitcast, cst.Name) and bitcast.value == "False"):
            return None
        args = positional(node)
        if self.is_tl(node.func, "cast"):
            value = args[0] if args else keyword(node, "input")
            target = args[1] if len(args) > 1 else keyword(node, "dtype")
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value == "to":
            value = node.func.value
            target = args[0] if args else keyword(node, "dtype")
        else:
            return None
        if value is None or target is None:
            return None
        return Conversion(self.triton_dtype(target), node, value)

    def kernel_value_dtype(self, kernel: Kernel, node: cst.BaseExpression, depth: int = 0) -> DtypeFact | None:
        """What is known of the dtype of a kernel-side value: an explicit
        conversion's target, a `tl.zeros/full(..., dtype=)`, or for a
        `tl.load` the host dtype every launch agrees on for its pointer."""
        if depth > 12:
            return None
        if isinstance(node, cst.Name):
            value = self.assigned_value(kernel.function, node.value, before=node)
            return None if value is None or value is node else self.kernel_value_dtype(kernel, value, depth + 1)
        if not isinstance(node, cst.Call):
            return None
        conversion = self.kernel_cast(kernel, node, depth + 1)
        if conversion is not None:
            if conversion.dtype is None:
                return None
            return DtypeFact(conversion.dtype, f"converted at line {self.line_of(node)}", "cast")
        if self.is_tl(node.func, "zeros") or self.is_tl(node.func, "full"):
            dtype = self.triton_dtype(
                keyword(node, "dtype") or (positional(node)[-1] if len(positional(node)) > 1 else None)
            )
            return DtypeFact(dtype, f"created at line {self.line_of(node)}", "creation") if dtype else None
        pointers = self.loaded_pointers(kernel, node, depth + 1)
        return self.pointer_dtype(kernel, pointers[0]) if pointers else None

    def pointer_dtype(self, kernel: Kernel, param: str) -> DtypeFact | None:
        """The host dtype of the tensor bound to pointer parameter `param`
        when every launch that says anything agrees; None when unknown or
        launches disagree (see `pointer_dtypes` for each launch)."""
        known = [fact for fact, _ in self.pointer_dtypes(kernel, param) if fact is not None]
        if known and all(fact.dtype == known[0].dtype for fact in known):
            return known[0]
        return None

    def pointer_dtypes(self, kernel: Kernel, param: str) -> list[tuple[DtypeFact | None, Launch]]:
        """For each launch of the kernel, what is known of the dtype of the
        tensor bound to pointer parameter `param`."""
        results = []
        for launch in self.launches_of(kernel):
            argument = launch.arguments.get(param)
            fact = self.dtype_of(argument, launch.caller) if argument is not None else None
            results.append((fact, launch))
        return results
