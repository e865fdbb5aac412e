"""Host values: which expressions are Python numbers, which are fixed for a
module's lifetime (literals, module constants, `self.X` set once in
`__init__`), which tensors a function builds from fixed values on every call,
which names a function writes in place, and the attention chain
matmul -> softmax -> matmul followed through local names.

Every index is built once per function (or class) and cached: queries never
rescan the file.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property

import libcst as cst
from kernlint.model.base import ModelBase
from kernlint.model.facts import ClassInfo, FunctionInfo
from kernlint.model.syntax import (
    call_name,
    children,
    keyword,
    literal_value,
    names_in,
    positional,
    statements,
    walk,
)

# torch function -> positions of its two multiplied operands. F.linear is left
# out on purpose: its right operand is a weight, never a key or value.
MATMUL_OPERANDS = {
    "torch.matmul": (0, 1),
    "torch.mm": (0, 1),
    "torch.bmm": (0, 1),
    "torch.baddbmm": (1, 2),
    "torch.addmm": (1, 2),
}
MATMUL_METHODS = frozenset({"matmul", "mm", "bmm"})
SOFTMAX_FUNCTIONS = frozenset(
    {"torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax", "torch.Tensor.softmax"}
)
SOFTMAX_MODULE = "torch.nn.Softmax"
# Ops that keep "this is the score matrix" when applied to it: scaling,
# masking, casting, dropout, reshaping.
SCORE_METHODS = frozenset(
    {
        "float",
        "half",
        "bfloat16",
        "to",
        "type",
        "type_as",
        "masked_fill",
        "masked_fill_",
        "contiguous",
        "view",
        "reshape",
        "clamp",
        "clamp_",
        "mul",
        "mul_",
        "div",
        "div_",
        "add",
        "add_",
        "sub",
        "tanh",
        "detach",
        "squeeze",
        "unsqueeze",
        "flatten",
        "view_as",
        "reshape_as",
        "transpose",
        "permute",
        "t",
    }
)
SCORE_FUNCTIONS = frozenset(
    {
        "torch.nn.functional.dropout",
        "torch.dropout",
        "torch.masked_fill",
        "torch.tanh",
        "torch.clamp",
        "torch.mul",
        "torch.div",
        "torch.add",
    }
)
# Methods and functions whose result is a Python number, not a tensor.
NUMBER_METHODS = frozenset({"numel", "dim", "ndimension", "size", "stride", "element_size", "item", "nelement"})
NUMBER_ATTRIBUTES = frozenset({"ndim", "shape"})
NUMBER_FUNCTIONS = frozenset(
    {
        "len",
        "int",
        "float",
        "math.ceil",
        "math.floor",
        "math.sqrt",
        "math.prod",
        "math.log2",
        "min",
        "max",
        "triton.cdiv",
        "triton.next_power_of_2",
        "abs",
        "round",
    }
)
# Tensor builders whose value is fixed when their arguments are.
BUILDERS = frozenset(
    {f"torch.{name}" for name in ("arange", "zeros", "ones", "full", "tensor", "eye", "linspace", "as_tensor", "range")}
)
# Keyword arguments that place or type a tensor without changing its values.
PLACEMENT = frozenset({"device", "dtype", "requires_grad", "pin_memory", "layout", "memory_format", "non_blocking"})
MOVES = frozenset({"to", "cuda", "float", "half", "bfloat16", "int", "long", "contiguous"})
CONTAINER_MUTATORS = frozenset({"append", "extend", "insert", "update", "setdefault", "pop", "remove", "clear"})
# `tl.store` and atomics: a kernel writes the pointer they address.
KERNEL_WRITES = (
    "store",
    "atomic_add",
    "atomic_max",
    "atomic_min",
    "atomic_cas",
    "atomic_xchg",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
)


@dataclass(frozen=True, eq=False, repr=False)
class FixedTensor:
    """A tensor built in a function from values fixed for the module's
    lifetime: `build` is the torch call (`torch.arange(64)`), `node` the
    whole expression including moves (`torch.arange(64).to(x.device)`), and
    `name` the local name it is bound to, if any."""

    build: cst.Call
    node: cst.BaseExpression
    name: str | None


# Code that checks or times other code rather than running in production:
# reference implementations, tests, benchmarks (by file and function name).
REFERENCE_FUNCTION = re.compile(r"^(?:test_|bench|ref_|torch_ref)|_ref$|reference|naive|baseline|truth", re.IGNORECASE)
REFERENCE_PATH = re.compile(
    r"(?:^|[/\\])(?:tests?|benchmarks?)[/\\]|(?:^|[/\\])(?:test_[^/\\]*|[^/\\]*_test|conftest)\.py$"
)


class HostValueFacts(ModelBase):
    def is_reference_code(self, function: FunctionInfo) -> bool:
        """A test, benchmark or reference implementation (a function named
        `test_*`, `bench*`, `*_ref`, `*reference*`, `*naive*`, `*truth*`, or any function
        of a file under tests/ or benchmarks/): it exists to be compared with
        the fast path, not to be one."""
        return bool(REFERENCE_PATH.search(self.path)) or any(
            REFERENCE_FUNCTION.search(part) for part in function.qualname.split(".")
        )

    # -- numbers and fixed values -------------------------------------------
    def is_python_number(self, node: cst.BaseExpression, scope: FunctionInfo, depth: int = 0) -> bool:
        """`x.shape[0]`, `x.size(1)`, `x.numel()`, `len(...)`, numeric
        literals, arithmetic of those, and names assigned from them."""
        if depth > 8:
            return False
        if isinstance(node, (cst.Integer, cst.Float)):
            return True
        if isinstance(node, cst.UnaryOperation):
            return self.is_python_number(node.expression, scope, depth + 1)
        if isinstance(node, cst.BinaryOperation):
            return self.is_python_number(node.left, scope, depth + 1) and self.is_python_number(
                node.right, scope, depth + 1
            )
        if (
            isinstance(node, cst.Subscript)
            and isinstance(node.value, cst.Attribute)
            and node.value.attr.value == "shape"
        ):
            return True
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Call) and call_name(node.value) == "size":
            return True
        if isinstance(node, cst.Attribute) and node.attr.value == "ndim":
            return True
        if isinstance(node, cst.Call):
            name = self.qualname(node.func)
            if name in NUMBER_FUNCTIONS:
                return True
            return (
                call_name(node) in NUMBER_METHODS
                and not self._imported(node.func)
                and (call_name(node) != "size" or bool(positional(node)))
            )
        if isinstance(node, cst.Name) and not scope.is_module_level and node.value not in scope.params:
            value = self.assigned_value(scope, node.value, before=node, strict=True)
            return value is not None and self.is_python_number(value, scope, depth + 1)
        return False

    def is_fixed(self, node: cst.BaseExpression, scope: FunctionInfo, depth: int = 0) -> bool:
        """Whether an expression has the same value on every call of `scope`:
        literals, module constants, `self.X` assigned once in `__init__` from
        a literal or a constructor argument, local names assigned once from
        those, arithmetic, tuples and lists of them, `float("inf")`,
        `math.pi`, dtypes."""
        if depth > 8:
            return False
        if literal_value(node) is not None or (isinstance(node, cst.Name) and node.value == "None"):
            return True
        if isinstance(node, (cst.Tuple, cst.List)):
            return all(
                not isinstance(e, cst.StarredElement) and self.is_fixed(e.value, scope, depth + 1)
                for e in node.elements
            )
        if isinstance(node, cst.UnaryOperation):
            return self.is_fixed(node.expression, scope, depth + 1)
        if isinstance(node, cst.BinaryOperation):
            return self.is_fixed(node.left, scope, depth + 1) and self.is_fixed(node.right, scope, depth + 1)
        if isinstance(node, cst.Call):
            name = self.qualname(node.func)
            if name in ("float", "int", "math.sqrt", "math.log", "math.log2") and node.args:
                return all(self.is_fixed(a.value, scope, depth + 1) for a in node.args)
            return False
        if isinstance(node, cst.Attribute):
            qualname = self.qualname(node) or ""
            if self._imported(node) and qualname.startswith(("math.", "torch.")):
                return True  # math.pi, torch.float16
            if isinstance(node.value, cst.Name) and node.value.value == "self":
                return self._fixed_attribute(scope, node.attr.value)
            return False
        if isinstance(node, cst.Name):
            if not scope.is_module_level and node.value in scope.params:
                return False
            local = self._assignments_to(scope, node.value) if not scope.is_module_level else []
            if local:
                return (
                    len(local) == 1
                    and node.value not in self.written_in_place(scope)
                    and self.is_fixed(local[0][0], scope, depth + 1)
                )
            module = self._assignments_to(self.top, node.value)
            return len(module) == 1 and self.is_fixed(module[0][0], self.top, depth + 1)
        return False

    def _fixed_attribute(self, scope: FunctionInfo, attribute: str) -> bool:
        cls = self.class_of(scope)
        if cls is None:
            return False
        values = self._self_attributes(cls).get(attribute, [])
        init = cls.methods.get("__init__")
        if len(values) != 1 or init is None:
            return False
        value = values[0]
        if isinstance(value, cst.Name) and value.value in init.params and value.value != "self":
            return True  # a constructor argument: fixed for the instance's lifetime
        return self.is_fixed(value, init)

    def _self_attributes(self, cls: ClassInfo) -> dict[str, list[cst.BaseExpression]]:
        """`self.X = value` assignments anywhere in the class (every method:
        an attribute set outside `__init__` is not fixed)."""
        index = self._attribute_index.get(id(cls))
        if index is None:
            index = defaultdict(list)
            for node in walk(cls.node.body):
                if isinstance(node, cst.Assign):
                    for target in node.targets:
                        t = target.target
                        if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                            index[t.attr.value].append(node.value)
                elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and node.value is not None:
                    t = node.target
                    if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                        # `self.X += 1` changes X: count it twice so X is never "set once".
                        index[t.attr.value].extend([node.value] * (2 if isinstance(node, cst.AugAssign) else 1))
            self._attribute_index[id(cls)] = index
        return index

    @cached_property
    def _attribute_index(self) -> dict[int, dict[str, list[cst.BaseExpression]]]:
        return {}

    def _imported(self, node: cst.BaseExpression) -> bool:
        """Whether a dotted expression starts at an imported name (`torch.x`,
        `F.softmax`) rather than at a local value (`x.softmax`)."""
        while isinstance(node, cst.Attribute):
            node = node.value
        return isinstance(node, cst.Name) and node.value in self.imports.aliases

    # -- tensors built per call ---------------------------------------------
    def fixed_tensors(self, function: FunctionInfo) -> list[FixedTensor]:
        """The tensors `function` builds, on each call, from fixed values
        (`torch.arange(64)`, `torch.tensor([1.0, 2.0]).to(x.device)`,
        `torch.full((4,), float("-inf"))`, `.cuda()` of a module constant),
        excluding those it writes in place, passes to a kernel that writes
        them, or returns (each needs a fresh tensor)."""
        found = []
        for call in function.calls:
            if self.qualname(call.func) not in BUILDERS or not self._imported(call.func):
                continue
            parents = self._parents(function)  # only for functions that build one: a walk of the body
            arguments = [a for a in call.args if a.keyword is None or a.keyword.value not in PLACEMENT]
            if not arguments or any(a.star for a in arguments):
                continue
            if not all(self.is_fixed(a.value, function) for a in arguments):
                continue
            node: cst.BaseExpression = call
            on_device = keyword(call, "device") is not None
            while True:
                parent = parents.get(id(node))
                if isinstance(parent, cst.Attribute) and parent.attr.value in MOVES:
                    grand = parents.get(id(parent))
                    if isinstance(grand, cst.Call) and grand.func is parent:
                        on_device = on_device or self._moves_to_device(grand)
                        node = grand
                        continue
                break
            ancestor = parents.get(id(node))
            while not on_device and isinstance(ancestor, (cst.BaseExpression, cst.Arg)):
                # Moved later as part of a larger expression: `(10000 ** arange(...)).to(dev)`.
                on_device = isinstance(ancestor, cst.Call) and self._moves_to_device(ancestor)
                ancestor = parents.get(id(ancestor))
            if not on_device:
                continue  # a host tensor (metadata, a CPU scratch): no device work per call
            parent = parents.get(id(node))
            while isinstance(parent, (cst.IfExp, cst.Element, cst.Tuple, cst.List)):
                # `t if c else None`, `return t, grad`: the tensor is still what is bound or returned.
                parent = parents.get(id(parent))
            name = None
            if (
                isinstance(parent, cst.Assign)
                and len(parent.targets) == 1
                and isinstance(parent.targets[0].target, cst.Name)
            ):
                name = parent.targets[0].target.value
            if isinstance(parent, cst.Return) or (name is not None and name in self._returned(function)):
                continue
            if isinstance(parent, cst.Arg) and (parent.keyword is not None and parent.keyword.value == "out"):
                continue
            if name is not None and (name in self.written_in_place(function) or name in self._escaping(function)):
                continue
            if isinstance(parent, cst.Arg) and self._unknown_callee(parents.get(id(parent))):
                continue
            if self._passed_to_writing_kernel(function, node, name):
                continue
            found.append(FixedTensor(call, node, name))
        return found

    def _moves_to_device(self, call: cst.Call) -> bool:
        """`.cuda()`, `.to(x.device)`, `.to("cuda")`, `.to(device=...)`; not
        `.to(torch.float16)` or `.to(x.dtype)`."""
        method = call_name(call)
        if method == "cuda":
            return True
        if method != "to":
            return False
        if keyword(call, "device") is not None:
            return True
        args = positional(call)
        if not args:
            return False
        target = args[0]
        if isinstance(target, cst.Attribute) and target.attr.value == "dtype":
            return False
        qualname = self.qualname(target) or ""
        return not (self._imported(target) and qualname.startswith("torch.") and qualname != "torch.device")

    def _unknown_callee(self, call: cst.CSTNode | None) -> bool:
        """A call that may keep or write its arguments: a function of this
        file or of another library (`wrapper(x, t)`, `ct.launch(...)`),
        not a torch function or a tensor method."""
        if not isinstance(call, cst.Call) or isinstance(call.func, cst.Subscript):
            return False
        func = call.func
        if isinstance(func, cst.Attribute) and not self._imported(func):
            receiver = func.value
            return isinstance(receiver, cst.Name) and receiver.value == "self"
        qualname = self.qualname(func) or ""
        return not qualname.startswith("torch.") and qualname not in ("float", "int", "len", "print", "isinstance")

    def _escaping(self, function: FunctionInfo) -> frozenset[str]:
        """Local names passed (anywhere inside an argument) to an unknown
        callee: it may write them or keep them."""
        names = self._escapes.get(id(function))
        if names is None:
            found: set[str] = set()
            for call in function.calls:
                if self._unknown_callee(call):
                    for argument in call.args:
                        found.update(n.value for n in names_in(argument.value))
            # `arg = x if x is not None else dummy`: what `arg` escapes with, `dummy` escapes with.
            for _ in range(4):
                grown = {
                    n.value for target, value, _ in function.assignments if target in found for n in names_in(value)
                } - found
                if not grown:
                    break
                found |= grown
            names = self._escapes[id(function)] = frozenset(found)
        return names

    @cached_property
    def _escapes(self) -> dict[int, frozenset[str]]:
        return {}

    def is_cold(self, function: FunctionInfo, _seen: frozenset[int] = frozenset()) -> bool:
        """Whether every call of `function` in this file runs once or on a
        cache miss: from `__init__` or a preparation method, behind a cache
        test (`if not hasattr(self, "cos_cached"): self._set_cache()`), or
        from a function that is itself cold."""
        if id(function) in _seen:
            return False
        sites = list(self.callers(function))
        return bool(sites) and all(
            self.is_preparation(caller)  # type: ignore[attr-defined]
            or self.behind_cache(call, caller)  # type: ignore[attr-defined]
            or self.is_cold(caller, _seen | {id(function)})
            for call, caller in sites
        )

    def written_in_place(self, function: FunctionInfo) -> frozenset[str]:
        """Local names `function` mutates: `t += ...`, `t[...] = ...`,
        `t.zero_()`/`t.fill_(...)` (any method ending in `_`), `out=t`, and
        lists or dicts grown in place (`addrs.append(...)`)."""
        index = self._writes.get(id(function))
        if index is None:
            written: set[str] = set()
            if function.node is not None:
                for node in walk(function.node.body):
                    if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
                        written.add(node.target.value)
                    elif isinstance(node, cst.Assign):
                        for target in node.targets:
                            if isinstance(target.target, cst.Subscript) and isinstance(target.target.value, cst.Name):
                                written.add(target.target.value.value)
                    elif isinstance(node, cst.Call):
                        method = call_name(node)
                        if method and (
                            method in CONTAINER_MUTATORS or (method.endswith("_") and not method.startswith("_"))
                        ):
                            receiver = node.func.value  # type: ignore[attr-defined]
                            if isinstance(receiver, cst.Name):
                                written.add(receiver.value)
                        out = keyword(node, "out")
                        if isinstance(out, cst.Name):
                            written.add(out.value)
            index = self._writes[id(function)] = frozenset(written)
        return index

    @cached_property
    def _writes(self) -> dict[int, frozenset[str]]:
        return {}

    def _returned(self, function: FunctionInfo) -> frozenset[str]:
        names = self._returns.get(id(function))
        if names is None:
            found: set[str] = set()
            if function.node is not None:
                for node in walk(function.node.body):
                    if isinstance(node, cst.Return) and node.value is not None:
                        values = node.value.elements if isinstance(node.value, cst.Tuple) else [node.value]
                        for value in values:
                            value = getattr(value, "value", value)
                            if isinstance(value, cst.Name):
                                found.add(value.value)
            names = self._returns[id(function)] = frozenset(found)
        return names

    @cached_property
    def _returns(self) -> dict[int, frozenset[str]]:
        return {}

    def _passed_to_writing_kernel(self, function: FunctionInfo, node: cst.BaseExpression, name: str | None) -> bool:
        """Whether the tensor reaches a kernel launch in `function` at a
        pointer the kernel stores to (or where that cannot be told)."""
        for launch in self.launches:
            if launch.caller is not function:
                continue
            for argument in launch.node.args:
                value = argument.value
                if value is node or (name is not None and isinstance(value, cst.Name) and value.value == name):
                    if argument.star:
                        return True
                    param = next((p for p, v in launch.arguments.items() if v is value), None)
                    if param is None or param in self.stored_pointers(launch.kernel):
                        return True
        return False

    def stored_pointers(self, kernel) -> frozenset[str]:
        """Pointer parameters a kernel stores to or updates atomically."""
        found = self._stores.get(id(kernel))
        if found is None:
            names: set[str] = set()
            for call in self.kernel_uses(kernel, *KERNEL_WRITES):  # type: ignore[attr-defined]
                args = positional(call)
                address = args[0] if args else keyword(call, "pointer")
                if address is not None:
                    names.update(self.pointer_params(kernel, address))  # type: ignore[attr-defined]
            found = self._stores[id(kernel)] = frozenset(names)
        return found

    def pointers_loaded(self, kernel) -> frozenset[str]:
        """Pointer parameters some load of the kernel reads through (those it can name)."""
        return self._loads(kernel)[0]

    def write_only_pointers(self, kernel) -> frozenset[str]:
        """Pointer parameters a kernel stores to and never loads from (an output it only writes), where every
        load of the kernel names the pointer parameter it reads through; empty otherwise."""
        found = self._write_only.get(id(kernel))
        if found is None:
            loaded, resolved = self._loads(kernel)
            found = frozenset(self.stored_pointers(kernel) - loaded) if resolved else frozenset()
            self._write_only[id(kernel)] = found
        return found

    def _loads(self, kernel) -> tuple[frozenset[str], bool]:
        """The pointer parameters the kernel's loads read through, and whether every load names one."""
        loaded: set[str] = set()
        resolved = True
        for call in self.kernel_uses(kernel, "load"):  # type: ignore[attr-defined]
            args = positional(call)
            address = args[0] if args else keyword(call, "pointer")
            params = self.pointer_params(kernel, address) if address is not None else ()  # type: ignore[attr-defined]
            resolved = resolved and bool(params)
            loaded.update(params)
        return frozenset(loaded), resolved

    @cached_property
    def _write_only(self) -> dict[int, frozenset[str]]:
        return {}

    def writes_resolved(self, kernel) -> bool:
        """Every store and atomic update of the kernel names the pointer parameter it writes through (none
        through a block pointer or an address the table cannot follow): `stored_pointers` is then all it writes."""
        for call in self.kernel_uses(kernel, *KERNEL_WRITES):  # type: ignore[attr-defined]
            args = positional(call)
            address = args[0] if args else keyword(call, "pointer")
            if address is None or not self.pointer_params(kernel, address):  # type: ignore[attr-defined]
                return False
        return True

    @cached_property
    def _stores(self) -> dict[int, frozenset[str]]:
        return {}

    def _parents(self, function: FunctionInfo) -> dict[int, cst.CSTNode]:
        parents = self._parent_index.get(id(function))
        if parents is None:
            parents = {}
            if function.node is not None:
                stack = statements(function.node.body)
                while stack:
                    node = stack.pop()
                    below = children(node)
                    for child in below:
                        parents[id(child)] = node
                    stack.extend(below)
            self._parent_index[id(function)] = parents
        return parents

    @cached_property
    def _parent_index(self) -> dict[int, dict[int, cst.CSTNode]]:
        return {}


__all__ = ["FixedTensor", "HostValueFacts"]
