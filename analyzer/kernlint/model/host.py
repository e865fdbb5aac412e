"""Host-side facts: what runs per call (hot paths), which module tensors an
expression stands for, which values reach a function's parameters, and
which code runs once (preparation, caches).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property

import libcst as cst
from kernlint.model.base import ModelBase
from kernlint.model.facts import FunctionInfo, Kernel, Launch, ModuleTensor, ParameterSource
from kernlint.model.syntax import ends_in_return, keyword, positional, statements, view_base, walk
from kernlint.model.torch_api import MODULE_MOVES

# Methods that run once rather than per call, by name (KL002).
PREPARATION_PREFIXES = ("prepare", "load", "quantize", "pack", "init", "setup", "from_", "process_weights")

MEMOIZERS = frozenset({"functools.cache", "functools.lru_cache", "functools.cached_property"})

# Containers whose items are nn modules: iterating one walks layers, not data.
MODULE_CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict"})
# The parameters an nn layer holds under these names (`self.fc.weight`, `self.conv.bias`).
LAYER_PARAMETERS = frozenset({"weight", "bias"})
TENSOR_CLASSES = frozenset({"Parameter", "UninitializedParameter", "Buffer", "UninitializedBuffer"})


class HostFacts(ModelBase):
    @cached_property
    def hot_functions(self) -> frozenset[FunctionInfo]:
        """forward of nn.Modules, forward/backward of autograd Functions,
        functions that launch a kernel, and what those call in this file."""
        roots: list[FunctionInfo] = [
            launch.caller
            for launch in self.launches
            if not launch.caller.is_module_level and launch.caller.class_name not in self._kernelbench_reference
        ]
        for cls in self.classes.values():
            if cls.name in self._kernelbench_reference:
                continue
            if cls.is_nn_module and "forward" in cls.methods:
                roots.append(cls.methods["forward"])
            if cls.is_autograd_function:
                roots.extend(cls.methods[m] for m in ("forward", "backward") if m in cls.methods)
        hot: set[FunctionInfo] = set()
        while roots:
            function = roots.pop()
            if function in hot or self.kernel_of(function) is not None:
                continue
            hot.add(function)
            roots.extend(self.called_functions(function))
        return frozenset(hot)

    @cached_property
    def _kernelbench_reference(self) -> frozenset[str]:
        """`Model` in a file that also defines `ModelNew`: KernelBench's
        reference, kept beside the solution to compare with, not the code to
        speed up (its torch ops are what the solution replaces)."""
        return frozenset({"Model"}) if "ModelNew" in self.classes and "Model" in self.classes else frozenset()

    def in_kernelbench_reference(self, function: FunctionInfo) -> bool:
        """A method of KernelBench's reference `Model` in a file that defines `ModelNew` too."""
        return function.class_name is not None and function.class_name in self._kernelbench_reference

    def is_hot(self, function: FunctionInfo) -> bool:
        return function in self.hot_functions

    @cached_property
    def model_functions(self) -> frozenset[FunctionInfo]:
        """The hot paths of a model: forward of nn.Modules, forward/backward
        of autograd Functions, and what those call in this file; not the
        plain launcher functions a kernel library exposes (a reimplementation
        of a torch op, which follows torch's own numerics)."""
        roots: list[FunctionInfo] = []
        for cls in self.classes.values():
            if cls.name in self._kernelbench_reference:
                continue
            if cls.is_nn_module and "forward" in cls.methods:
                roots.append(cls.methods["forward"])
            if cls.is_autograd_function:
                roots.extend(cls.methods[m] for m in ("forward", "backward") if m in cls.methods)
        found: set[FunctionInfo] = set()
        while roots:
            function = roots.pop()
            if function in found or self.kernel_of(function) is not None:
                continue
            found.add(function)
            roots.extend(self.called_functions(function))
        return frozenset(found)

    @cached_property
    def module_forward_functions(self) -> frozenset[FunctionInfo]:
        """forward of nn.Modules and what it calls in this file, not through
        an autograd Function and not a function that launches a Triton
        kernel: the torch code of a model, where a chain of torch ops is the
        model's own work (a kernel library's glue around its kernels, on
        gradients and small side tensors, is not). KernelBench's reference
        `Model` beside a `ModelNew` is not one."""
        launching = {id(launch.caller) for launch in self.launches}
        roots = [
            cls.methods["forward"]
            for cls in self.classes.values()
            if cls.is_nn_module
            and not cls.is_autograd_function
            and "forward" in cls.methods
            and cls.name not in self._kernelbench_reference
        ]
        found: set[FunctionInfo] = set()
        while roots:
            function = roots.pop()
            if function in found or self.kernel_of(function) is not None or id(function) in launching:
                continue
            found.add(function)
            roots.extend(self.called_functions(function))
        return frozenset(found)

    def bindings(self, scope: FunctionInfo, param: str) -> Iterator[tuple[cst.BaseExpression, FunctionInfo]]:
        """The argument expressions that reach parameter `param` of `scope`
        at its call sites in this file."""
        if param not in scope.params or scope.node is None:
            return
        params = list(scope.params)
        index = params.index(param)
        if scope.class_name is not None and params and params[0] in ("self", "cls"):
            index -= 1
        for call, caller in self.callers(scope):
            value = keyword(call, param)
            if value is None:
                args = positional(call)
                if 0 <= index < len(args) and not any(a.star for a in call.args[: index + 1]):
                    value = args[index]
            if value is not None:
                yield value, caller

    def get_inputs_element(self, scope: FunctionInfo, param: str) -> cst.BaseExpression | None:
        """For `forward(self, x, ...)` of an nn.Module, the element of
        `get_inputs()`'s returned list that becomes `x` (KernelBench form)."""
        if scope.name != "forward" or scope.class_name is None:
            return None
        get_inputs = self.function("get_inputs")
        if get_inputs is None or get_inputs.node is None:
            return None
        params = [p for p in scope.params if p != "self"]
        if param not in params:
            return None
        index = params.index(param)
        for node in walk(get_inputs.node.body):
            if isinstance(node, cst.Return) and isinstance(node.value, (cst.List, cst.Tuple)):
                elements = node.value.elements
                if index < len(elements) and not isinstance(elements[index], cst.StarredElement):
                    element = elements[index].value
                    if isinstance(element, cst.Name):
                        return self.assigned_value(get_inputs, element.value) or element
                    return element
        return None

    def module_tensor(self, node: cst.BaseExpression, scope: FunctionInfo) -> ModuleTensor | None:
        """`self.X` inside a method, when X is a tensor the module holds."""
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
            cls = self.class_of(scope)
            if cls is not None:
                return cls.tensors.get(node.attr.value)
        return None

    def is_module_collection(self, node: cst.BaseExpression, scope: FunctionInfo) -> bool:
        """`self.X` where `__init__` built X as an nn module (`nn.Linear`),
        an `nn.ModuleList`, `nn.Sequential` or `nn.ModuleDict`, or a list,
        tuple or comprehension of nn module instances (`[nn.Linear(d, d)
        for _ in range(n)]`): layers, not a tensor."""
        tensor = self.module_tensor(node, scope)
        return tensor is not None and self._modules_built(tensor.value)

    def _modules_built(self, value: cst.BaseExpression) -> bool:
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in MODULE_MOVES
        ):
            return self._modules_built(value.func.value)  # `nn.Linear(...).half()`: the module, converted
        if isinstance(value, cst.Call):
            name = self.qualname(value.func) or ""
            if name in MODULE_CONTAINERS:
                return True
            last = name.rsplit(".", 1)[-1]
            # An nn module instance (`nn.Linear(d, d)`); a Parameter or Buffer is a tensor.
            return name.startswith("torch.nn.") and last[:1].isupper() and last not in TENSOR_CLASSES
        if isinstance(value, (cst.List, cst.Tuple)):
            return bool(value.elements) and all(
                not isinstance(e, cst.StarredElement) and self._modules_built(e.value) for e in value.elements
            )
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            return self._modules_built(value.elt)
        return False

    def parameter_source(self, node: cst.BaseExpression, scope: FunctionInfo, depth: int = 0) -> ParameterSource | None:
        """The module tensor an expression stands for, and the function that
        reads it as `self.X`, followed through views (`.t()`, `.T`),
        assignments made before it and wrapper arguments (`wrapper(x,
        self.weight)`)."""
        if depth > 8:
            return None
        node = view_base(node)
        tensor = self.module_tensor(node, scope) or self._layer_parameter(node, scope)
        if tensor is not None:
            cls = self.class_of(scope)
            assert cls is not None
            return ParameterSource(tensor, cls, scope)
        if isinstance(node, cst.Name):
            value = self.assigned_value(scope, node.value, before=node, strict=True)
            if value is not None:
                return self.parameter_source(value, scope, depth + 1)
            for argument, caller in self.bindings(scope, node.value):
                found = self.parameter_source(argument, caller, depth + 1)
                if found is not None:
                    return found
        return None

    def _layer_parameter(self, node: cst.BaseExpression, scope: FunctionInfo) -> ModuleTensor | None:
        """`self.fc.weight` / `self.conv.bias`, where `__init__` built `self.fc` as one nn layer
        (`nn.Linear(...)`): that layer's parameter, named `fc.weight`."""
        if not (isinstance(node, cst.Attribute) and node.attr.value in LAYER_PARAMETERS):
            return None
        layer = self.module_tensor(node.value, scope)
        if layer is None or not isinstance(layer.value, cst.Call) or not self._modules_built(layer.value):
            return None
        if (self.qualname(layer.value.func) or "") in MODULE_CONTAINERS:
            return None
        return ModuleTensor(f"{layer.name}.{node.attr.value}", "parameter", layer.value, layer.scope)

    def host_argument(self, kernel: Kernel, param: str) -> list[tuple[cst.BaseExpression, Launch]]:
        return [(launch.arguments[param], launch) for launch in self.launches_of(kernel) if param in launch.arguments]

    def stride_dims(self, kernel: Kernel, param: str) -> dict[int, tuple[str, int]] | None:
        """When every launch of the kernel passes `t.stride(k)` (a named
        tensor, a literal dimension) for `param`: the (t, k) of each launch,
        keyed by the launch's id. None otherwise, or when nothing launches it."""
        launches = self.launches_of(kernel)
        found: dict[int, tuple[str, int]] = {}
        for argument, launch in self.host_argument(kernel, param):
            if not (
                isinstance(argument, cst.Call)
                and isinstance(argument.func, cst.Attribute)
                and argument.func.attr.value == "stride"
                and isinstance(argument.func.value, cst.Name)
                and len(argument.args) == 1
                and argument.args[0].keyword is None
                and isinstance(argument.args[0].value, cst.Integer)
            ):
                return None
            found[id(launch)] = (argument.func.value.value, int(argument.args[0].value.value, 0))
        return found if found and len(found) == len(launches) else None

    def is_preparation(self, function: FunctionInfo, _seen: frozenset[int] = frozenset()) -> bool:
        """A method that runs once, not per call: `__init__`, one named like
        preparation (`prepare*`, `load*`, `quantize*`, `pack*`, `_init*`,
        `setup*`, `from_*`), or one whose every caller in this file is one."""
        if function.is_module_level or function.name in ("forward", "backward", "__call__"):
            return False
        if function.name == "__init__" or function.name.lstrip("_").startswith(PREPARATION_PREFIXES):
            return True
        if id(function) in _seen:
            return False
        callers = [caller for _, caller in self.callers(function)]
        return bool(callers) and all(self.is_preparation(caller, _seen | {id(function)}) for caller in callers)

    def behind_cache(self, node: cst.CSTNode, scope: FunctionInfo) -> bool:
        """Whether `node` (inside `scope`) only runs on a cache miss: under
        `if self._wt is None:` / `if key not in self._cache:` /
        `if not hasattr(self, ...)`, after `if self._wt is not None: return`,
        or in a function memoized with `functools.cache`/`lru_cache`."""
        if scope.node is None:
            return False
        if any(name in MEMOIZERS for name in scope.decorators):
            return True
        guarded = self._cache_guarded.get(id(scope))
        if guarded is None:
            guarded = self._cache_guarded[id(scope)] = self._collect_cache_guarded(scope.node)
        return id(node) in guarded

    def only_behind_cache(self, function: FunctionInfo) -> bool:
        """Whether every call that reaches `function` from the hot path runs on a cache miss (a helper that
        builds a weight's layout, called under `if key != self._key:`), so it does not run on every call."""
        seen: set[int] = set()

        def cached(target: FunctionInfo) -> bool:
            if id(target) in seen:
                return True
            seen.add(id(target))
            sites = [(call, caller) for call, caller in self.callers(target) if caller in self.hot_functions]
            return bool(sites) and all(
                self.behind_cache(call, caller) or (caller.class_name is not None and cached(caller))
                for call, caller in sites
            )

        forwards = {id(cls.methods["forward"]) for cls in self.classes.values() if "forward" in cls.methods}
        return id(function) not in forwards and cached(function)

    @cached_property
    def _cache_guarded(self) -> dict[int, frozenset[int]]:
        return {}

    def _collect_cache_guarded(self, function: cst.FunctionDef) -> frozenset[int]:
        guarded: set[int] = set()

        def mark(node: cst.CSTNode) -> None:
            guarded.update(id(n) for n in walk(node))

        def block(body: list[cst.CSTNode]) -> None:
            hit_returned = False
            for statement in body:
                if hit_returned:
                    mark(statement)
                    continue
                if isinstance(statement, cst.If):
                    kind = self._cache_test(statement.test)
                    if kind == "miss":
                        mark(statement.body)
                    else:
                        block(statements(statement.body))
                    if kind == "hit" and ends_in_return(statement.body):
                        hit_returned = True
                    if statement.orelse is not None:
                        orelse = statement.orelse
                        if kind == "hit":
                            mark(orelse)
                        elif isinstance(orelse, cst.If):
                            block([orelse])
                        else:
                            block(statements(orelse.body))
                elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                    continue
                elif isinstance(statement, (cst.For, cst.While, cst.With, cst.Try)):
                    block(statements(statement.body))

        block(statements(function.body))
        return frozenset(guarded)

    def _cache_test(self, test: cst.BaseExpression) -> str | None:
        """ "miss" for a test that is true when a cached value is absent,
        "hit" for one true when it is present, None otherwise."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self._cache_test(test.expression)
            return {"hit": "miss", "miss": "hit"}.get(inner or "")
        if isinstance(test, cst.BooleanOperation):
            # `miss or stale` refills the cache; `ready and hit` only runs on a hit.
            kinds = {self._cache_test(test.left), self._cache_test(test.right)}
            if "miss" in kinds:
                return "miss"
            return "hit" if isinstance(test.operator, cst.And) and "hit" in kinds else None
        if isinstance(test, cst.Call) and self.qualname(test.func) == "hasattr":
            return "hit"
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            comparison = test.comparisons[0]
            operator, right = comparison.operator, comparison.comparator
            if isinstance(operator, (cst.Is, cst.IsNot)) and isinstance(right, cst.Name) and right.value == "None":
                if self._is_cache_state(test.left):
                    return "miss" if isinstance(operator, cst.Is) else "hit"
            if isinstance(operator, (cst.In, cst.NotIn)) and self._is_cache_state(right):
                return "miss" if isinstance(operator, cst.NotIn) else "hit"
            if isinstance(operator, (cst.NotEqual, cst.Equal)) and (
                self._is_cache_state(test.left) or self._is_cache_state(right)
            ):
                # `if key != self._key:` (a weight's version, shape or address against the one its cached
                # layout was built for): a refill when stale.
                return "miss" if isinstance(operator, cst.NotEqual) else "hit"
        return None

    def _is_cache_state(self, node: cst.BaseExpression) -> bool:
        """`self.x`, `self.x[k]`, `self.x.get(k)`, `getattr(self, ...)`, or a
        module-level name: state that outlives one call."""
        while True:
            if isinstance(node, cst.Subscript):
                node = node.value
            elif isinstance(node, cst.Call):
                if self.qualname(node.func) == "getattr":
                    return True
                if not isinstance(node.func, cst.Attribute):
                    return False
                node = node.func.value
            else:
                break
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            return node.value.value == "self"
        if isinstance(node, cst.Name):
            return any(target == node.value for target, _, _ in self.top.assignments)
        return False
