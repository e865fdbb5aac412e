"""The core every fact builds on: the file's parsed module, positions,
names, scopes, the call graph and the values assigned to names. Filled by
the one traversal in collect.py; host.py, kernel.py and dtypes.py add the
questions rules ask.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from functools import cached_property, wraps
from typing import TYPE_CHECKING, Any, TypeVar, cast

import libcst as cst
from kernlint.findings import Span
from kernlint.model.collect import Collector
from kernlint.model.facts import TL, ClassInfo, FunctionInfo, Kernel, Launch
from kernlint.model.positions import Positions, SourceOrder
from kernlint.model.syntax import children, literal_value, names_in, uncopied
from kernlint.names import ImportTable, collect_imports, dotted

if TYPE_CHECKING:
    from kernlint.project import Project

Method = TypeVar("Method", bound=Callable[..., Any])
Model = TypeVar("Model", bound="ModelBase")


def kernel_fact(method: Method) -> Method:
    """A question about a kernel's body: answered by the model of the file
    that defines the kernel, which is another module for a kernel the file
    imports (kernlint.project). Put on every public method whose first
    argument is a Kernel and whose answer reads the kernel's own code."""

    @wraps(method)
    def in_home(self: ModelBase, kernel: Kernel, *args: Any, **kwargs: Any) -> Any:
        return method(self.home_of(kernel), kernel, *args, **kwargs)

    return cast(Method, in_home)


_UNRESOLVED = object()
_TL_QUALNAMES: dict[str, str] = {}  # "load" -> "triton.language.load"


class ModelBase:
    """Structure, positions and values of one file."""

    def __init__(
        self, path: str, source: str, module: cst.Module, project: Project | None = None, sm_count: int | None = None
    ) -> None:
        self.path = path
        self.source = source
        # The SM count of the GPU the estimates are for (its calibration's), which a file may read to size a
        # grid (`torch.cuda.get_device_properties(dev).multi_processor_count`); None: unknown.
        self.sm_count = sm_count
        # Where kernels this file imports are found (None: the file alone).
        self.project = project
        self._homes: dict[int, tuple[Kernel, ModelBase]] = {}  # id(imported kernel) -> (kernel, its model)
        # Positions come from kernlint.model.positions, not libcst's metadata
        # (whose import alone costs a tenth of a small file's run).
        self.module = module
        self.imports: ImportTable = collect_imports(self.module)
        self.top = FunctionInfo("<module>", "<module>", None)
        self.functions: list[FunctionInfo] = []
        self.classes: dict[str, ClassInfo] = {}
        self.constants: dict[str, object] = {}
        self.kernels: dict[str, Kernel] = {}  # every name a kernel is bound to
        self.launches: list[Launch] = []  # in source order (the collecting walk's)
        self._scope_of_node: dict[int, FunctionInfo] = {}
        self._main_guard_ids: set[int] = set()  # indexed calls / `@` ops under `if __name__ == ...`
        self._walked: list[cst.CSTNode] = []  # every node, in the collecting walk's (source) order
        self._walk_spans: dict[int, tuple[int, int]] = {}  # id(function node) -> its slice of _walked
        Collector(self).collect()

    def home_of(self: Model, kernel: Kernel) -> Model:
        """The model of the file that defines `kernel`: this one, or the
        module's a launch imported it from (a model of the same class)."""
        if not self._homes:  # no imported kernel: asked ~10 times per tl.dot
            return self
        home = self._homes.get(id(kernel))
        return self if home is None else cast(Model, home[1])

    def imported_kernel(self, target: str) -> Kernel | None:
        """The kernel a launch target names through an import from another
        module of the project (`mm` after `from .kernels import mm`;
        `kernels.mm` after `from . import kernels` or `import
        pkg.kernels as kernels`), or None."""
        source = self._import_source(target)
        found = self.project.imported_kernel(*source) if self.project is not None and source else None
        if found is None:
            return None
        self._homes[id(found[0])] = found
        return found[0]

    def imported_function(self: Model, call: cst.Call, containing: str = "") -> tuple[FunctionInfo, Model] | None:
        """The helper function of another module of the project that a call
        reaches (spelled as for `imported_kernel`), with that module's model;
        only from a module whose text holds `containing`."""
        target = dotted(call.func) if self.project is not None else None
        # From-imports only: `import torch` / `torch.x(...)` is never a
        # helper of the project, and every call would cost a lookup.
        head = target.partition(".")[0] if target else ""
        if not target or head not in self.imports.from_imports or target in self._function_by_qualname:
            return None
        source = self._import_source(target)
        found = self.project.imported_function(*source, containing) if self.project is not None and source else None
        return (found[0], cast(Model, found[1])) if found is not None else None

    def _import_source(self, target: str) -> tuple[int, str, str] | None:
        """(level, module, name) of the definition a dotted name imports."""
        head, _, rest = target.partition(".")
        source = self.imports.from_imports.get(head)
        if source is not None:
            level, module, name = source
            if not rest:
                return source
            return (level, f"{module}.{name}" if module else name, rest) if "." not in rest else None
        if rest and "." not in rest and head in self.imports.aliases:
            return (0, self.imports.aliases[head], rest)
        return None

    @cached_property
    def _positions(self) -> Positions:
        # Positions cost code generation, one top-level statement at a time
        # when first asked; the function index says which statement holds
        # an indexed node.
        return Positions(self.module, self.source, self._enclosing_def)

    def _enclosing_def(self, node: cst.CSTNode) -> cst.CSTNode | None:
        scope = self._scope_of_node.get(id(node))
        return scope.node if scope is not None else None

    def span(self, node: cst.CSTNode) -> Span:
        return self._positions.span(node)

    def line_of(self, node: cst.CSTNode) -> int:
        return self._positions.line(node)

    def offsets(self, node: cst.CSTNode) -> tuple[int, int]:
        """Character offsets of a node in `source`, for fixes."""
        return self._positions.offsets(node)

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def qualname(self, node: cst.BaseExpression) -> str | None:
        # Asked about a million times per thousand files, mostly of the same
        # call heads (`tl.load` in every rule): remembered per node, by id
        # (the model keeps the tree alive; a node's own __hash__ is a Python
        # call, which cost as much as the lookup).
        cache = self._qualnames
        name = cache.get(id(node), _UNRESOLVED)
        if name is _UNRESOLVED:
            name = cache[id(node)] = self.imports.resolve(node)
        return name  # type: ignore[return-value]

    @cached_property
    def _qualnames(self) -> dict[int, str | None]:
        return {}

    def is_call_to(self, node: cst.CSTNode, *qualnames: str) -> bool:
        return isinstance(node, cst.Call) and self.qualname(node.func) in qualnames

    def is_tl(self, node: cst.BaseExpression, name: str) -> bool:
        full = _TL_QUALNAMES.get(name)
        if full is None:  # asked about a million times per thousand files: one string per name
            full = _TL_QUALNAMES[name] = f"{TL}.{name}"
        return self.qualname(node) == full

    def scope_of(self, node: cst.CSTNode) -> FunctionInfo:
        """The innermost function containing a node (calls, assigns, asserts
        and launches are indexed; other nodes answer the module level)."""
        return self._scope_of_node.get(id(node), self.top)

    def in_main_guard(self, node: cst.CSTNode) -> bool:
        """Whether an indexed call or `@` operation sits under the module's
        `if __name__ == "__main__":`."""
        return id(node) in self._main_guard_ids

    def function(self, name: str) -> FunctionInfo | None:
        return self._function_by_qualname.get(name)

    @cached_property
    def _function_by_qualname(self) -> dict[str, FunctionInfo]:
        index: dict[str, FunctionInfo] = {}
        for function in self.functions:
            index.setdefault(function.qualname, function)
        return index

    def kernel_of(self, function: FunctionInfo) -> Kernel | None:
        return self._kernel_by_function.get(id(function))

    @cached_property
    def _kernel_by_function(self) -> dict[int, Kernel]:
        return {id(kernel.function): kernel for kernel in self.kernels.values()}

    @property
    def kernel_list(self) -> list[Kernel]:
        seen: dict[int, Kernel] = {}
        for kernel in self.kernels.values():
            seen.setdefault(id(kernel), kernel)
        # Source order without positions (they cost a code-generation pass):
        # functions are recorded in the order the traversal meets them.
        order = {id(function): index for index, function in enumerate(self.functions)}
        return sorted(seen.values(), key=lambda k: order[id(k.function)])

    @cached_property
    def calls(self) -> list[cst.Call]:
        """Every call in the file, in source order of their scopes (the
        module's top level first, then each function's)."""
        return [call for scope in (self.top, *self.functions) for call in scope.calls]

    def launches_of(self, kernel: Kernel) -> list[Launch]:
        return [launch for launch in self.launches if launch.kernel is kernel]

    def launches_in(self, function: FunctionInfo) -> list[Launch]:
        """The launches `function` makes, in source order: its own, and, standing at the call, those of
        each helper it calls (a function of the file, or a method as `self.m(...)`) that launches into the
        tensors it is handed and returns nothing or one of them (`out = torch.empty_like(x)`, then
        `_launch(x, out, n)`).
        A generated file moves its launches into such helpers as often as not; a rule that follows the
        tensor a launch writes through the calling function reads both spellings the same way. One level
        of helpers: their own helpers' launches are not lifted."""
        found = self._launches_in.get(id(function))
        if found is None:
            # Source order from the function's calls (recorded in the order the walk meets them), not from
            # positions: those cost a code-generation pass over the file.
            own = {id(x.node): x for x in self.launches if x.caller is function}
            found = []
            for call in function.calls:
                launch = own.get(id(call))
                found.extend([launch] if launch is not None else self._helper_launches(call, function))
            self._launches_in[id(function)] = found
        return found

    @cached_property
    def _launches_in(self) -> dict[int, list[Launch]]:
        return {}

    def _helper_launches(self, call: cst.Call, function: FunctionInfo) -> list[Launch]:
        """The launches of the helper `call` calls, seen from `call` (launches_in)."""
        helper = self.resolve_callee(call, self.class_of(function))
        if (
            helper is None
            or helper is function
            or helper.node is None
            or helper.decorators
            # A helper returning a tensor of its own is a wrapper, whose value rules follow; one returning
            # the buffer it was handed (`return out`) is still a launch into the caller's tensor.
            or any(
                r.value is not None and not (isinstance(r.value, cst.Name) and r.value.value in helper.params)
                for r in helper.returns
            )
            or any(a.star for a in call.args)
        ):
            return []
        inner = [x for x in self.launches if x.caller is helper]
        if not inner:
            return []
        params = list(helper.params)
        if helper.class_name is not None and isinstance(call.func, cst.Attribute):
            params = params[1:]  # `self.m(...)`: `self` is bound by the attribute
        handed: dict[str, cst.BaseExpression] = {}
        for index, argument in enumerate(a for a in call.args if a.keyword is None):
            if index < len(params):
                handed[params[index]] = argument.value
        for argument in call.args:
            if argument.keyword is not None:
                handed[argument.keyword.value] = argument.value

        # Names that mean something else in the caller: the helper's parameters and locals (`self` of a method
        # called as `self.m(...)` is the caller's own).
        local = set(params) | {target for target, _, _ in helper.assignments}

        def through(value: cst.BaseExpression) -> cst.BaseExpression | None:
            """The caller's expression for a launch argument: what it hands the parameter (seen through a
            `.contiguous()`, a no-op on it), the argument itself where it reads none of the helper's names, else
            None (`x.stride(0)` of a parameter)."""
            bare = uncopied(value)
            if isinstance(bare, cst.Name) and bare.value in handed:
                return handed[bare.value]
            root = bare
            while isinstance(root, cst.Attribute):
                root = root.value
            if (
                root is not bare
                and isinstance(root, cst.Name)
                and isinstance(handed.get(root.value), cst.Name)
                and not any(n.value in local for n in names_in(bare) if n is not root)
            ):
                # An attribute of a parameter the caller hands one of its names (`self.matmul.bias` in a
                # helper handed `self`): the same attribute of the caller's name.
                replaced = bare.deep_replace(root, handed[root.value])
                return replaced if isinstance(replaced, cst.BaseExpression) else None
            return None if any(n.value in local for n in names_in(value)) else value

        lifted = []
        for x in inner:
            arguments = {param: v for param, value in x.arguments.items() if (v := through(value)) is not None}
            lifted.append(
                Launch(call, x.kernel, through(x.grid) or x.grid, function, arguments, x.options, x.has_star_args, x)
            )
        return lifted

    def launch_at_site(self, line: int, kernel_name: str) -> Launch | None:
        """The launch of `kernel_name` written at `line`: where an entry point's
        Triton op (its `site_line`, its kernel in `note`) was launched."""
        for launch in self.launches:
            if self.line_of(launch.node) == line and launch.kernel.name == kernel_name.rsplit(".", 1)[-1]:
                return launch
        return None

    def class_of(self, function: FunctionInfo) -> ClassInfo | None:
        return self.classes.get(function.class_name) if function.class_name else None

    def enclosing_kernel_or_function(self, node: cst.CSTNode) -> str | None:
        """Name of the innermost function whose text contains the node (any
        node, not only the indexed ones), or None at module level."""
        scope = self.scope_of(node)
        if not scope.is_module_level:
            return scope.name
        statement = self._positions.statement_of(node)
        if statement is None:
            return None
        owners = self._text_owners.get(id(statement))
        if owners is None:
            owners = self._text_owners[id(statement)] = self._owners_in(statement)
        if id(node) not in owners:  # a node `children` does not reach (a layout token)
            return self._enclosing_by_span(node, statement)
        owner = owners[id(node)]
        return owner.name if owner is not None else None

    def _owners_in(self, statement: cst.CSTNode) -> dict[int, FunctionInfo | None]:
        """For each node under a top-level statement, the innermost function
        whose text holds it: its nearest enclosing def, except that a def's
        text starts at `def`, so its decorators and the lines before it
        belong to the function around it. One walk of the statement, where
        comparing spans generated the code of every function in it."""
        functions = {id(function.node): function for function in self.functions}
        owners: dict[int, FunctionInfo | None] = {}
        stack: list[tuple[cst.CSTNode, FunctionInfo | None]] = [(statement, None)]
        while stack:
            node, owner = stack.pop()
            if type(node) is cst.FunctionDef:
                outside = {id(n) for n in (*node.leading_lines, *node.decorators, *node.lines_after_decorators)}
                inner = functions.get(id(node), owner)
                owners[id(node)] = inner
                stack.extend((kid, owner if id(kid) in outside else inner) for kid in children(node))
            else:
                owners[id(node)] = owner
                stack.extend((kid, owner) for kid in children(node))
        return owners

    @cached_property
    def _text_owners(self) -> dict[int, dict[int, FunctionInfo | None]]:
        return {}

    def _enclosing_by_span(self, node: cst.CSTNode, statement: cst.CSTNode) -> str | None:
        span = self.span(node)
        # Only functions in the node's own top-level statement can hold it:
        # the others' spans would cost their statements' code generation.
        positions = self._positions
        best: FunctionInfo | None = None
        for function in self.functions:
            assert function.node is not None
            if positions.top_statement(function.node) is not statement:
                continue
            outer = self.span(function.node)
            if (outer.line, outer.column) <= (span.line, span.column) and (span.end_line, span.end_column) <= (
                outer.end_line,
                outer.end_column,
            ):
                if best is None or self.span(best.node).line <= outer.line:  # type: ignore[arg-type]
                    best = function
        return best.name if best is not None else None

    def called_functions(self, function: FunctionInfo) -> Iterator[FunctionInfo]:
        """Functions of this file that `function` calls by name or as
        `self.method(...)`."""
        owner = self.class_of(function)
        for call in function.calls:
            target = self.resolve_callee(call, owner)
            if target is not None:
                yield target

    def resolve_callee(self, call: cst.Call, owner: ClassInfo | None) -> FunctionInfo | None:
        func = call.func
        if isinstance(func, cst.Name):
            return self.function(func.value)
        if (
            owner is not None
            and isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            return owner.methods.get(func.attr.value)
        return None

    def callers(self, function: FunctionInfo) -> Iterator[tuple[cst.Call, FunctionInfo]]:
        """The calls in this file that reach `function`, with their scopes,
        in source order of the scopes."""
        yield from self._call_graph.get(id(function), ())

    @cached_property
    def _call_graph(self) -> dict[int, list[tuple[cst.Call, FunctionInfo]]]:
        # Built once: a per-query rescan of every call made the model
        # quadratic in the number of functions (issue 14).
        graph: dict[int, list[tuple[cst.Call, FunctionInfo]]] = defaultdict(list)
        for caller in [self.top, *self.functions]:
            owner = self.class_of(caller)
            for call in caller.calls:
                target = self.resolve_callee(call, owner)
                if target is not None:
                    graph[id(target)].append((call, caller))
        return graph

    def _assignments_to(self, scope: FunctionInfo, name: str) -> list[tuple[cst.BaseExpression, cst.CSTNode]]:
        index = self._assignment_index.get(id(scope))
        if index is None:
            index = defaultdict(list)
            for target, value, node in scope.assignments:
                index[target].append((value, node))
            self._assignment_index[id(scope)] = index
        return index.get(name, [])

    @cached_property
    def _assignment_index(self) -> dict[int, dict[str, list[tuple[cst.BaseExpression, cst.CSTNode]]]]:
        return {}

    def assigned_value(
        self, scope: FunctionInfo, name: str, before: cst.CSTNode | None = None, strict: bool = False
    ) -> cst.BaseExpression | None:
        """The value most recently assigned to `name` in `scope` before
        `before`; if nothing precedes it, the last assignment anywhere (a
        loop may carry it back), or None when `strict`."""
        candidates = self._assignments_to(scope, name)
        if not candidates:
            return None
        if before is not None and (strict or len(candidates) > 1):  # else the one candidate, wherever it is
            order = self.source_order(scope, before)
            if order is not None:
                earlier = [c for c in candidates if c[1] in order and order.before(c[1], before)]
                if earlier:
                    return earlier[-1][0]
                if strict:
                    return None
        return candidates[-1][0]

    def source_order(self, function: FunctionInfo, node: cst.CSTNode) -> SourceOrder | None:
        """The source order of `function`'s nodes when `node` is one of
        them, else of the module's (None when the node is not in the file),
        numbered as the collecting walk met them (model.positions.SourceOrder)."""
        for root in (function.node, self.module):
            if root is None:
                continue
            order = self._source_orders.get(id(root))
            if order is None:
                # A function's nodes are a slice of the walk: no walk of its own.
                start, end = self._walk_spans.get(id(root), (0, len(self._walked)))
                numbers = {id(n): number for number, n in enumerate(self._walked[start:end], start)}
                order = self._source_orders[id(root)] = SourceOrder(numbers)
            if node in order:
                return order
        return None

    @cached_property
    def _source_orders(self) -> dict[int, SourceOrder]:
        return {}

    def constant_value(self, node: cst.BaseExpression, scope: FunctionInfo, depth: int = 0) -> object | None:
        """The value of an expression that is fixed in the source: a literal,
        a module constant assigned once, or a local name assigned exactly once
        from one of those. None for anything computed (a call, a lookup, a
        branch, a parameter)."""
        if depth > 8:
            return None
        value = literal_value(node)
        if value is not None:
            return value
        if not isinstance(node, cst.Name):
            return None
        local = [v for v, _ in self._assignments_to(scope, node.value)]
        if not scope.is_module_level and (local or node.value in scope.params):
            if len(local) != 1 or node.value in scope.params:
                return None
            return self.constant_value(local[0], scope, depth + 1)
        module = [v for v, _ in self._assignments_to(self.top, node.value)]
        if len(module) == 1:
            return self.constant_value(module[0], self.top, depth + 1)
        return None
