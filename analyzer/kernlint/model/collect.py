"""The one traversal that fills a FileModel: scopes, assignments, calls,
classes and module tensors, then kernels (decorators, autotune, heuristics)
and launch sites bound to their kernels' parameters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from kernlint.model.facts import (
    TL,
    TRITON_AUTOTUNE,
    TRITON_HEURISTICS,
    TRITON_JIT,
    Autotune,
    ClassInfo,
    FunctionInfo,
    Kernel,
    KernelParam,
    Launch,
    ModuleTensor,
)
from kernlint.model.syntax import is_main_guard, keyword, literal_value, positional, visit, walk
from kernlint.names import dotted

if TYPE_CHECKING:
    from kernlint.model.base import ModelBase


class Collector:
    """The one traversal that fills a FileModel."""

    def __init__(self, model: ModelBase) -> None:
        self.model = model
        self.scopes: list[FunctionInfo] = [model.top]
        self.classes: list[ClassInfo] = []
        # Innermost first: is the nearest enclosing definition a class body?
        self.in_class_body: list[bool] = [False]
        self.main_guard_depth = 0
        self.pending_launches: list[tuple[cst.Call, FunctionInfo]] = []
        self.call_form_kernels: list[tuple[str, cst.Call, FunctionInfo]] = []
        self.rebinds: list[tuple[str, str]] = []

    def collect(self) -> None:
        # Not module.visit(self): libcst's visitor costs about a parse.
        visit(self.model.module, self, self.model._walked)
        self._find_kernels()
        for alias, target in self.rebinds:
            if target in self.model.kernels and alias not in self.model.kernels:
                self.model.kernels[alias] = self.model.kernels[target]
        for call, scope in self.pending_launches:
            launch = self._launch(call, scope)
            if launch is not None:
                self.model.launches.append(launch)

    @property
    def scope(self) -> FunctionInfo:
        return self.scopes[-1]

    # -- classes and functions --
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        bases = tuple(self.model.qualname(b.value) or "" for b in node.bases)
        info = ClassInfo(node.name.value, node, bases)
        local_bases = [self.model.classes.get(b) for b in bases]
        info.is_nn_module = any(b in ("torch.nn.Module", "nn.Module") or b.endswith("nn.Module") for b in bases) or any(
            c is not None and c.is_nn_module for c in local_bases
        )
        info.is_autograd_function = any(
            b in ("torch.autograd.Function", "torch.autograd.function.Function") for b in bases
        )
        self.model.classes.setdefault(info.name, info)
        self.classes.append(info)
        self.in_class_body.append(True)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()
        self.in_class_body.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        cls = self.classes[-1] if self.in_class_body[-1] else None
        outer = self.scope
        qual = node.name.value
        if cls is not None:
            qual = f"{cls.name}.{qual}"
        elif not outer.is_module_level:
            qual = f"{outer.qualname}.{qual}"
        params = tuple(
            p.name.value for p in (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params)
        )
        info = FunctionInfo(
            node.name.value,
            qual,
            node,
            class_name=cls.name if cls is not None else None,
            params=params,
            decorators=tuple(self._decorator_name(d) for d in node.decorators),
        )
        self.model.functions.append(info)
        if cls is not None:
            cls.methods.setdefault(info.name, info)
        self.scopes.append(info)
        self.in_class_body.append(False)
        # The definition was just walked; its nodes follow it in the walk.
        self.model._walk_spans[id(node)] = (len(self.model._walked) - 1, 0)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()
        self.in_class_body.pop()
        spans = self.model._walk_spans
        spans[id(original_node)] = (spans[id(original_node)][0], len(self.model._walked))

    def _decorator_name(self, decorator: cst.Decorator) -> str:
        target = decorator.decorator
        if isinstance(target, cst.Call):
            target = target.func
        return self.model.qualname(target) or ""

    # -- statements --
    def visit_If(self, node: cst.If) -> None:
        if self.scope.is_module_level and is_main_guard(node.test):
            self.main_guard_depth += 1

    def leave_If(self, original_node: cst.If) -> None:
        if self.scope.is_module_level and is_main_guard(original_node.test):
            self.main_guard_depth -= 1

    def visit_Assign(self, node: cst.Assign) -> None:
        self.scope.bindings.append(node)
        for target in node.targets:
            self._assign(target.target, node.value, node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.scope.bindings.append(node)
        if node.value is not None:
            self._assign(node.target, node.value, node)

    def _assign(self, target: cst.BaseExpression, value: cst.BaseExpression, node: cst.CSTNode) -> None:
        scope = self.scope
        self.model._scope_of_node[id(node)] = scope
        if (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(value, (cst.Tuple, cst.List))
            and len(target.elements) == len(value.elements)
            and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements))
        ):
            # `BLOCK_M, BLOCK_N = 64, 32` binds each name to its own value.
            for name, item in zip(target.elements, value.elements):
                self._assign(name.value, item.value, node)
            return
        if isinstance(target, cst.Name):
            scope.assignments.append((target.value, value, node))
            if scope.is_module_level:
                literal = literal_value(value)
                if literal is not None:
                    self.model.constants[target.value] = literal
                if isinstance(value, cst.Name):
                    self.rebinds.append((target.value, value.value))
                if isinstance(value, cst.Call):
                    self.call_form_kernels.append((target.value, value, scope))
        elif (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
            and self.classes
            and scope.name == "__init__"
        ):
            self._module_tensor(target.attr.value, value, scope)

    def _module_tensor(
        self, name: str, value: cst.BaseExpression, scope: FunctionInfo, kind: str | None = None
    ) -> None:
        cls = self.model.classes.get(scope.class_name or "")
        if cls is None:
            return
        if kind is None:
            if self.model.is_call_to(value, "torch.nn.Parameter", "torch.nn.parameter.Parameter"):
                kind = "parameter"
            elif any(
                isinstance(n, cst.Call) and (self.model.qualname(n.func) or "").startswith("torch.")
                for n in walk(value)
            ):
                kind = "tensor"
            else:
                return
        cls.tensors[name] = ModuleTensor(name, kind, value, scope)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.MatrixMultiply):
            self.scope.matmul_ops.append(node)
            self.model._scope_of_node[id(node)] = self.scope
            if self.main_guard_depth:
                self.model._main_guard_ids.add(id(node))

    def visit_For(self, node: cst.For) -> None:
        self.scope.loops.append(node)
        self.scope.bindings.append(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.scope.bindings.append(node)

    def visit_Return(self, node: cst.Return) -> None:
        self.scope.returns.append(node)

    def visit_Assert(self, node: cst.Assert) -> None:
        self.scope.asserts.append(node)
        self.model._scope_of_node[id(node)] = self.scope

    def visit_Call(self, node: cst.Call) -> None:
        scope = self.scope
        self.model._scope_of_node[id(node)] = scope
        scope.calls.append(node)
        if self.main_guard_depth:
            scope.under_main_guard.append(node)
            self.model._main_guard_ids.add(id(node))
        if isinstance(node.func, cst.Subscript):
            self.pending_launches.append((node, scope))
        if (
            isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "register_buffer"
            and scope.name == "__init__"
        ):
            args = positional(node)
            if len(args) >= 2 and isinstance(args[0], cst.SimpleString):
                name = args[0].evaluated_value
                if isinstance(name, str):
                    self._module_tensor(name, args[1], scope, kind="buffer")

    # -- kernels --
    def _find_kernels(self) -> None:
        model = self.model
        for function in model.functions:
            assert function.node is not None
            decorators = function.node.decorators
            names = [self._decorator_name(d) for d in decorators]
            if TRITON_JIT not in names:
                continue
            model.kernels[function.name] = self._kernel(function, decorators)
        for alias, call, _ in self.call_form_kernels:
            # `kernel = triton.jit(fn)` and `kernel = triton.jit(**opts)(fn)`.
            target = call
            if isinstance(target.func, cst.Call) and model.is_call_to(target.func, TRITON_JIT):
                pass
            elif not model.is_call_to(target, TRITON_JIT):
                continue
            args = positional(target)
            if args and isinstance(args[0], cst.Name):
                jitted = model.function(args[0].value)
                if jitted is not None and jitted.node is not None:
                    # One Kernel per function, however many names jit it.
                    existing = next((k for k in model.kernels.values() if k.function is jitted), None)
                    model.kernels[alias] = existing or self._kernel(jitted, jitted.node.decorators)

    def _kernel(self, function: FunctionInfo, decorators) -> Kernel:
        model = self.model
        assert function.node is not None
        params = []
        for p in (*function.node.params.params, *function.node.params.kwonly_params):
            annotation = p.annotation.annotation if p.annotation is not None else None
            constexpr = annotation is not None and (
                model.qualname(annotation) == f"{TL}.constexpr"
                or (isinstance(annotation, cst.SimpleString) and "constexpr" in annotation.value)
            )
            params.append(KernelParam(p.name.value, constexpr, p.default))
        autotune = None
        heuristics: list[str] = []
        for decorator in decorators:
            target = decorator.decorator
            if not isinstance(target, cst.Call):
                continue
            name = model.qualname(target.func)
            if name == TRITON_AUTOTUNE:
                autotune = Autotune(
                    decorator,
                    self._configs(keyword(target, "configs") or next(iter(positional(target)), None)),
                    self._strings(keyword(target, "key")),
                )
            elif name == TRITON_HEURISTICS:
                values = keyword(target, "values") or next(iter(positional(target)), None)
                if isinstance(values, cst.Dict):
                    heuristics.extend(
                        str(e.key.evaluated_value)
                        for e in values.elements
                        if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                    )
                else:
                    heuristics.append("*")
        return Kernel(function, tuple(params), autotune, tuple(heuristics), bool(heuristics))

    def _configs(self, node: cst.BaseExpression | None) -> tuple[dict[str, object], ...] | None:
        if not isinstance(node, (cst.List, cst.Tuple)):
            return None
        configs = []
        for element in node.elements:
            call = element.value
            if not self.model.is_call_to(call, "triton.Config"):
                return None
            assert isinstance(call, cst.Call)
            values: dict[str, object] = {}
            args = positional(call)
            if args and isinstance(args[0], cst.Dict):
                for entry in args[0].elements:
                    if isinstance(entry, cst.DictElement) and isinstance(entry.key, cst.SimpleString):
                        values[str(entry.key.evaluated_value)] = literal_value(entry.value)
            for arg in call.args:
                if arg.keyword is not None:
                    values[arg.keyword.value] = literal_value(arg.value)
            configs.append(values)
        return tuple(configs)

    @staticmethod
    def _strings(node: cst.BaseExpression | None) -> tuple[str, ...]:
        if not isinstance(node, (cst.List, cst.Tuple)):
            return ()
        return tuple(str(e.value.evaluated_value) for e in node.elements if isinstance(e.value, cst.SimpleString))

    def _launch(self, call: cst.Call, scope: FunctionInfo) -> Launch | None:
        subscript = call.func
        assert isinstance(subscript, cst.Subscript)
        target = dotted(subscript.value)
        if target is None:
            return None
        # `kernel[...]`, or `self.kernel[...]` / `module.kernel[...]` for a
        # kernel bound under that attribute name.
        kernel = (
            self.model.kernels.get(target)
            or self.model.kernels.get(target.split(".")[-1])
            or self.model.imported_kernel(target)
        )
        if kernel is None or len(subscript.slice) != 1:
            return None
        element = subscript.slice[0].slice
        if not isinstance(element, cst.Index):
            return None
        names = [p.name for p in kernel.params]
        arguments: dict[str, cst.BaseExpression] = {}
        options: dict[str, cst.BaseExpression] = {}
        has_star = False
        index = 0
        for arg in call.args:
            if arg.star:
                has_star = True
                continue
            if arg.keyword is None:
                if index < len(names) and not has_star:
                    arguments[names[index]] = arg.value
                index += 1
            elif arg.keyword.value in names:
                arguments[arg.keyword.value] = arg.value
            else:
                options[arg.keyword.value] = arg.value
        return Launch(call, kernel, element.value, scope, arguments, options, has_star)
