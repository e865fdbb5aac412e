"""Does kernlint's verdict survive harmless changes of spelling?

An LLM writes the same program many ways: `x = self.conv(x)` then
`x = x.contiguous()` in a statement of its own, or `x = self.conv(x).contiguous()`.
A rule that fires on one spelling and not on the other misses real files.
This script rewrites each KernelBench-style file of the corpora (a PyTorch
`Model`, a Triton `ModelNew`; top-level `*.py` only) with each of a set of
semantics-preserving libcst transformers, one transformer per rewritten copy,
lints the original and every copy in this process (`kernlint.runner.run`, the
files written to a temporary folder under their own names), and compares the
rule codes found (a multiset: line numbers move, codes should not) and the
verdict (worth optimizing, and the category where yes).

    python scripts/robustness.py [--jobs N] [--keep DIR] [--only NAME] [CORPUS ...]

CORPUS defaults to fixtures/fresh, fresh2, fresh3, fresh4 and fresh5. It prints a table
(per mutation: files it applied to, files whose codes or verdict changed, and
the codes lost and gained over all files), then one line per changed file
(mutation, file, codes lost and gained, verdict before -> after), then any
copy that failed to parse or compile (a bug in a mutation, not in kernlint).
Output is sorted and does not depend on --jobs. `--keep DIR` writes every
changed copy to DIR/<mutation>/<corpus>/<file> for a look.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import libcst as cst
from kernlint.runner import run

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPORA = tuple(os.path.join(REPO, "fixtures", name) for name in ("fresh", "fresh2", "fresh3", "fresh4", "fresh5"))

# ---- small syntax helpers ---------------------------------------------------


def dotted(node: cst.CSTNode) -> str | None:
    """`torch.nn.functional.relu` for that attribute chain of names, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


class _NameNodes(cst.CSTVisitor):
    """Every Name node that is a variable: not an attribute (`x.shape`) nor a keyword (`BLOCK=`)."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[cst.Name] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.nodes.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False


def name_nodes(node: cst.CSTNode) -> list[cst.Name]:
    visitor = _NameNodes()
    node.visit(visitor)
    return visitor.nodes


class _Replace(cst.CSTTransformer):
    """Replace the given Name nodes (by identity, so that no attribute or keyword is touched) by `mapping[name]`."""

    def __init__(self, nodes: list[cst.Name], mapping: dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.ids = {id(n) for n in nodes if n.value in mapping}
        self.mapping = mapping

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.mapping[original.value] if id(original) in self.ids else updated


def replace_names(
    node: cst.CSTNode, mapping: dict[str, cst.BaseExpression], nodes: list[cst.Name] | None = None
) -> cst.CSTNode:
    """`node` with its variables (or only `nodes`, where given) named in `mapping` replaced."""
    return node.visit(_Replace(name_nodes(node) if nodes is None else nodes, mapping))


class _Bound(cst.CSTVisitor):
    """Names a statement binds in its own scope (assignment, for, with, walrus, except);
    nested functions, lambdas and comprehensions are other scopes and are not entered."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()
        self.declares_scope = False  # global / nonlocal: renaming would reach outside

    def _target(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name):
            self.names.add(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                self._target(element.value)
        elif isinstance(node, cst.StarredElement):
            self._target(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._target(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._target(node.target)

    def visit_Global(self, node: cst.Global) -> None:
        self.declares_scope = True

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.declares_scope = True

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        return False

    visit_SetComp = visit_GeneratorExp = visit_DictComp = visit_ListComp  # type: ignore[assignment]


def bound(nodes: Sequence[cst.CSTNode]) -> _Bound:
    visitor = _Bound()
    for node in nodes:
        node.visit(visitor)
    return visitor


def method(module: cst.Module, cls: str, name: str) -> cst.FunctionDef | None:
    for statement in module.body:
        if isinstance(statement, cst.ClassDef) and statement.name.value == cls:
            for item in statement.body.body:
                if isinstance(item, cst.FunctionDef) and item.name.value == name:
                    return item
    return None


def forward_locals(module: cst.Module) -> set[str] | None:
    """ModelNew.forward's local names (its parameters with `self`, and what it binds), or None
    where that is unsure: no forward, a global/nonlocal declaration, locals()/eval, an import."""
    forward = method(module, "ModelNew", "forward")
    if forward is None:
        return None
    found = bound([forward.body])
    if found.declares_scope or {"locals", "vars", "eval", "exec"} & {n.value for n in name_nodes(forward)}:
        return None
    if any(isinstance(n, (cst.Import, cst.ImportFrom)) for n in _walk(forward.body)):
        return None  # an import's name would be renamed in the import too
    return found.names | {p.name.value for p in parameters(forward)}


def parameters(function: cst.FunctionDef) -> list[cst.Param]:
    p = function.params
    stars = [s for s in (p.star_arg, p.star_kwarg) if isinstance(s, cst.Param)]
    return [*p.posonly_params, *p.params, *p.kwonly_params, *stars]


def kernels(module: cst.Module) -> set[str]:
    """Names of the module's Triton kernels: functions decorated by triton.jit, autotune, heuristics."""
    out = set()
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            for decorator in statement.decorators:
                target = decorator.decorator
                name = dotted(target.func if isinstance(target, cst.Call) else target) or ""
                if name.startswith("triton.") or name in ("jit", "autotune", "heuristics"):
                    out.add(statement.name.value)
    return out


def launched(call: cst.Call, kernel_names: set[str]) -> str | None:
    """The kernel a `kernel[grid](...)` call launches, else None."""
    func = call.func
    if isinstance(func, cst.Subscript) and isinstance(func.value, cst.Name) and func.value.value in kernel_names:
        return func.value.value
    return None


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and everything under it, in source order."""
    yield node
    for child in node.children:
        yield from _walk(child)


def grid_of(call: cst.Call) -> cst.BaseExpression | None:
    """The grid of a `kernel[grid](...)` call, else None."""
    func = call.func
    if isinstance(func, cst.Subscript) and len(func.slice) == 1 and isinstance(func.slice[0].slice, cst.Index):
        return func.slice[0].slice.value
    return None


def single(statement: cst.CSTNode) -> cst.BaseSmallStatement | None:
    """The one small statement of a simple line (`x = 1`), else None."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        return statement.body[0]
    return None


def module_names(module: cst.Module) -> set[str]:
    return {n.value for n in name_nodes(module)}


def fresh(base: str, taken: set[str]) -> str:
    """`base`, or `base_2`, `base_3`... whichever no name of the module is; then taken."""
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


# ---- the mutations ----------------------------------------------------------


class Mutation(cst.CSTTransformer):
    """Base: a rewrite that keeps the program's meaning; `changed` counts the sites rewritten.
    `scope` is the path of classes and functions the visit is in (`["ModelNew", "forward"]`)."""

    name = ""

    def __init__(self, module: cst.Module) -> None:
        super().__init__()
        self.module = module
        self.kernels = kernels(module)
        self.scope: list[str] = []
        self.functions: list[cst.FunctionDef] = []  # the original nodes of the functions the visit is in
        self.changed = 0

    @classmethod
    def mutate(cls, source: str) -> str | None:
        """The rewritten source, or None where the mutation does not apply."""
        module = cst.parse_module(source)
        mutation = cls(module)
        new = module.visit(mutation).code
        return new if mutation.changed and new != source else None

    def in_forward(self, classes: tuple[str, ...] = ("ModelNew",)) -> bool:
        return len(self.scope) >= 2 and self.scope[0] in classes and self.scope[1] == "forward"

    def in_host(self) -> bool:
        return not (self.scope and self.scope[0] in self.kernels)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.append(node.name.value)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.scope.pop()
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scope.append(node.name.value)
        self.functions.append(node)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        result = self.function(original, updated)
        self.scope.pop()
        self.functions.pop()
        return result

    def function(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        return updated


# Calls known to return one tensor (not a tuple, a size or a device), so that
# `.contiguous()` on the result is defined and changes no value.
TENSOR_FUNCTIONS = frozenset(
    "empty empty_like zeros zeros_like ones ones_like full full_like rand randn rand_like randn_like arange "
    "flatten reshape permute transpose rsqrt sqrt exp log abs sum mean amax amin addmm mm bmm baddbmm matmul "
    "einsum cat stack cumsum tril triu clamp relu sigmoid tanh gelu silu softmax log_softmax linear conv1d "
    "conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d dropout layer_norm group_norm batch_norm "
    "instance_norm avg_pool1d avg_pool2d avg_pool3d adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d "
    "max_pool1d max_pool2d max_pool3d interpolate pad leaky_relu hardtanh softplus mish hardswish elu".split()
)
TENSOR_MODULES = re.compile(
    r"(Conv(Transpose)?[123]d|Linear|BatchNorm[123]d|GroupNorm|LayerNorm|InstanceNorm[123]d|(Adaptive)?"
    r"(Max|Avg)Pool[123]d|Dropout([123]d)?|ReLU|GELU|SiLU|Sigmoid|Tanh|Softmax|LeakyReLU|Hardtanh|Mish|"
    r"Hardswish|Flatten|Upsample|Embedding|Identity)"
)


class ContiguousRebind(Mutation):
    """After `y = self.layer(...)` or `y = torch.f(...)` in ModelNew.forward, add `y = y.contiguous()`."""

    name = "contiguous_rebind"

    def __init__(self, module: cst.Module) -> None:
        super().__init__(module)
        # self.<attr> counts as a tensor layer only where every assignment to it in
        # ModelNew builds one of TENSOR_MODULES (without return_indices=...).
        built: dict[str, list[bool]] = {}
        model = next((s for s in module.body if isinstance(s, cst.ClassDef) and s.name.value == "ModelNew"), None)
        for assign in _walk(model) if model else ():
            if not isinstance(assign, cst.Assign):
                continue
            value = assign.value
            ctor = (dotted(value.func) or "") if isinstance(value, cst.Call) else ""
            ok = (
                isinstance(value, cst.Call)
                and ctor.startswith(("nn.", "torch.nn."))
                and bool(TENSOR_MODULES.fullmatch(ctor.split(".")[-1]))
                and not any(a.keyword and a.keyword.value == "return_indices" for a in value.args)
            )
            for target in assign.targets:
                if (dotted(target.target) or "").startswith("self."):
                    built.setdefault(dotted(target.target) or "", []).append(ok)
        self.layers = {name for name, oks in built.items() if all(oks)}

    def returns_tensor(self, call: cst.Call) -> bool:
        func = dotted(call.func) or ""
        if func in self.layers:
            return True
        for prefix in ("torch.nn.functional.", "torch.", "F."):
            if func.startswith(prefix) and func[len(prefix) :] in TENSOR_FUNCTIONS:
                return not any(a.keyword and a.keyword.value == "return_indices" for a in call.args)
        return False

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        if not self.in_forward():
            return updated
        body: list[cst.BaseStatement] = []
        for statement in updated.body:
            body.append(statement)
            assign = single(statement)
            if (
                isinstance(assign, cst.Assign)
                and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name)
                and isinstance(assign.value, cst.Call)
                and self.returns_tensor(assign.value)
            ):
                name = assign.targets[0].target.value
                body.append(cst.parse_statement(f"{name} = {name}.contiguous()\n"))
                self.changed += 1
        return updated.with_changes(body=body)


class RenameLocals(Mutation):
    """Rename ModelNew.forward's parameters and local variables (x -> x_in, out -> result, n -> n_v)."""

    name = "rename_locals"
    PREFERRED = {"x": "x_in", "out": "result", "y": "y_out", "output": "result"}

    def function(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        if self.scope != ["ModelNew", "forward"]:
            return updated
        local = forward_locals(self.module)
        # A nested def might be called by keyword with a renamed parameter's name.
        if local is None or any(isinstance(n, cst.FunctionDef) for n in _walk(original.body)):
            return updated
        taken = module_names(self.module)
        mapping: dict[str, cst.BaseExpression] = {
            name: cst.Name(fresh(self.PREFERRED.get(name, f"{name}_v"), taken)) for name in sorted(local - {"self"})
        }
        self.changed += len(mapping)
        # Every occurrence inside forward's body, nested lambdas included, is the same
        # variable: Python makes a name bound anywhere in a function local to all of it.
        # Defaults and annotations are evaluated outside, so they keep their names.
        nodes = [p.name for p in parameters(original)] + name_nodes(original.body)
        return replace_names(original, mapping, nodes)  # type: ignore[return-value]


class EmptyLikeSpelled(Mutation):
    """Spell `torch.empty_like(t)` as `torch.empty(t.shape, device=t.device, dtype=t.dtype)` (t a name).

    The same where `t` is contiguous, as the tensors a Triton kernel indexes flat are
    (empty_like keeps a non-contiguous `t`'s strides, which no value depends on)."""

    name = "empty_like_spelled"

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not self.in_host() or dotted(updated.func) != "torch.empty_like" or not updated.args:
            return updated
        first, *rest = updated.args
        kwargs = {a.keyword.value: a.value for a in rest if a.keyword}
        # Only a plain name or attribute chain (evaluated three times) and only
        # dtype/device keywords: memory_format or requires_grad would change meaning.
        if first.keyword or first.star or dotted(first.value) is None or len(kwargs) != len(rest):
            return updated
        if set(kwargs) - {"dtype", "device"}:
            return updated
        t = cst.Module([]).code_for_node(first.value)
        device = cst.Module([]).code_for_node(kwargs["device"]) if "device" in kwargs else f"{t}.device"
        dtype = cst.Module([]).code_for_node(kwargs["dtype"]) if "dtype" in kwargs else f"{t}.dtype"
        self.changed += 1
        return cst.parse_expression(f"torch.empty({t}.shape, device={device}, dtype={dtype})")


class GridLambda(Mutation):
    """Write a launch's grid tuple `(cdiv(n, BLOCK),)` as `lambda meta: (cdiv(n, meta['BLOCK']),)`."""

    name = "grid_lambda"

    def as_lambda(self, grid: cst.BaseExpression, call: cst.Call) -> cst.Lambda | None:
        """The grid as a lambda of the launch's meta-parameters, where it uses a block size
        passed as `BLOCK=BLOCK`; None where it uses none (or already says `meta`)."""
        if not isinstance(grid, cst.Tuple):
            return None
        passed = {
            a.keyword.value
            for a in call.args
            if a.keyword and isinstance(a.value, cst.Name) and a.value.value == a.keyword.value
        }
        used = {n.value for n in name_nodes(grid)}
        if "meta" in used or not used & passed:
            return None
        mapping: dict[str, cst.BaseExpression] = {k: cst.parse_expression(f"meta['{k}']") for k in used & passed}
        body = replace_names(grid, mapping)
        return cst.Lambda(params=cst.Parameters([cst.Param(cst.Name("meta"))]), body=body)  # type: ignore[arg-type]

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        # The grid written inline: kernel[(cdiv(n, BLOCK),)](..., BLOCK=BLOCK).
        grid = grid_of(updated) if self.in_host() and launched(updated, self.kernels) else None
        new = self.as_lambda(grid, updated) if grid is not None else None
        if new is None:
            return updated
        self.changed += 1
        func = updated.func
        assert isinstance(func, cst.Subscript) and isinstance(func.slice[0].slice, cst.Index)
        element = func.slice[0].with_changes(slice=func.slice[0].slice.with_changes(value=new))
        return updated.with_changes(func=func.with_changes(slice=[element]))

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        # The grid assigned to a name: `grid = (...)`, then `kernel[grid](...)` later in
        # the same block, `grid` used nowhere else in the function, and nothing the
        # tuple reads rebound in between (a lambda reads its names when the launch runs).
        if not self.in_host() or not self.functions:
            return updated
        uses = Counter(n.value for n in name_nodes(self.functions[-1]))
        body = list(updated.body)
        for i, statement in enumerate(body):
            assign = single(statement)
            if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1):
                continue
            target = assign.targets[0].target
            if not isinstance(target, cst.Name) or uses[target.value] != 2:
                continue
            for j in range(i + 1, len(body)):
                call = next((c for c in _walk(body[j]) if self.launches_on(c, target.value)), None)
                if call is None:
                    continue
                assert isinstance(call, cst.Call)
                new = self.as_lambda(assign.value, call)
                if new is not None and not bound(body[i + 1 : j + 1]).names & {n.value for n in name_nodes(new)}:
                    body[i] = statement.with_changes(body=[assign.with_changes(value=new)])  # type: ignore[attr-defined]
                    self.changed += 1
                break
        return updated.with_changes(body=body)

    def launches_on(self, node: cst.CSTNode, grid: str) -> bool:
        """Is `node` a launch whose grid is the name `grid`?"""
        if not isinstance(node, cst.Call) or not launched(node, self.kernels):
            return False
        expression = grid_of(node)
        return isinstance(expression, cst.Name) and expression.value == grid


class _HoistSelf(cst.CSTTransformer):
    """Replace each `self.a.b` read (not a method called on it) by a parameter `a_b`; `params` maps
    each parameter to the expression forward passes for it. A bare `self` left means it failed."""

    def __init__(self, taken: set[str]) -> None:
        super().__init__()
        self.taken = taken
        self.params: dict[str, str] = {}
        self.methods: set[int] = set()  # `self.conv.weight.stride` in `....stride(0)`: hoist its receiver

    def visit_Call(self, node: cst.Call) -> None:
        self.methods.add(id(node.func))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return not self.hoisted(node)

    def hoisted(self, node: cst.Attribute) -> bool:
        return (dotted(node) or "").startswith("self.") and id(node) not in self.methods

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if not self.hoisted(original):
            return updated
        chain = dotted(original) or ""
        name = next((p for p, c in self.params.items() if c == chain), None)
        if name is None:
            name = fresh(chain.removeprefix("self.").replace(".", "_"), self.taken)
            self.params[name] = chain
        return cst.Name(name)


class LaunchInHelper(Mutation):
    """Move each `kernel[grid](...)` statement of ModelNew.forward into a module-level `_launch_<kernel>`
    (forward's variables passed as parameters; `self.a.b` passed as its value)."""

    name = "launch_in_helper"
    pass_self = False

    def __init__(self, module: cst.Module) -> None:
        super().__init__(module)
        self.local = forward_locals(module) or set()
        self.taken = module_names(module)
        self.helpers: list[cst.FunctionDef] = []

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        small = single(updated)
        if self.scope != ["ModelNew", "forward"] or not isinstance(small, cst.Expr):
            return updated
        call = small.value
        kernel = launched(call, self.kernels) if isinstance(call, cst.Call) else None
        if kernel is None or any(isinstance(n, cst.NamedExpr) for n in _walk(call)):
            return updated
        lambda_params = {p.name.value for n in _walk(call) if isinstance(n, cst.Lambda) for p in n.params.params}
        if lambda_params & self.local:
            return updated
        hoisted: dict[str, str] = {}
        if not self.pass_self:
            hoist = _HoistSelf(self.taken)
            call = call.visit(hoist)
            if "self" in {n.value for n in name_nodes(call)}:
                return updated  # `self` itself is used (a method of it called): not this variant
            hoisted = hoist.params
        # Every variable of forward's that the statement reads becomes a parameter, in
        # order of first use; globals (the kernel, triton, torch) stay globals.
        arguments = {n.value: hoisted.get(n.value, n.value) for n in name_nodes(call)}
        arguments = {p: a for p, a in arguments.items() if p in self.local or p in hoisted}
        helper = fresh(f"_launch_{kernel}", self.taken)
        self.helpers.append(
            cst.FunctionDef(
                name=cst.Name(helper),
                params=cst.Parameters([cst.Param(cst.Name(p)) for p in arguments]),
                body=cst.IndentedBlock([updated.with_changes(leading_lines=[], body=[small.with_changes(value=call)])]),
                leading_lines=[cst.EmptyLine(), cst.EmptyLine()],
            )
        )
        self.changed += 1
        return updated.with_changes(body=[cst.Expr(cst.parse_expression(f"{helper}({', '.join(arguments.values())})"))])

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        body = list(updated.body)
        at = next(i for i, s in enumerate(body) if isinstance(s, cst.ClassDef) and s.name.value == "ModelNew")
        return updated.with_changes(body=[*body[:at], *self.helpers, *body[at:]])

    @classmethod
    def mutate(cls, source: str) -> str | None:
        # Without forward's locals known, the helper's parameters would be wrong.
        return None if forward_locals(cst.parse_module(source)) is None else super().mutate(source)


class LaunchInHelperSelf(LaunchInHelper):
    """Move each launch statement of ModelNew.forward into a module-level helper, `self` passed as is."""

    name = "launch_in_helper:self"
    pass_self = True


class KeywordLaunchArgs(Mutation):
    """Pass a launch's positional arguments by the kernel's parameter names (`x_ptr=x`)."""

    name = "keyword_launch_args"

    def __init__(self, module: cst.Module) -> None:
        super().__init__(module)
        # Kernels with plain parameters only: no *args, **kwargs or positional-only.
        self.params: dict[str, list[str]] = {}
        for statement in module.body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value in self.kernels:
                p = statement.params
                if not (p.posonly_params or isinstance(p.star_arg, cst.Param) or p.star_kwarg):
                    self.params[statement.name.value] = [q.name.value for q in p.params]

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        kernel = launched(updated, self.kernels) if self.in_host() else None
        names = self.params.get(kernel or "")
        positional = [a for a in updated.args if not a.keyword]
        if not names or not positional or any(a.star for a in updated.args) or len(positional) > len(names):
            return updated
        equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
        args = [
            a.with_changes(keyword=cst.Name(names[i]), equal=equal) if i < len(positional) else a
            for i, a in enumerate(updated.args)
        ]
        self.changed += 1
        return updated.with_changes(args=args)


ACTIVATIONS = ("relu", "sigmoid", "tanh")
NOT_TENSORS = frozenset({"torch", "F", "nn", "self", "tl", "triton", "math", "np"})


class ActivationSpelling(Mutation):
    """Base: spell relu/sigmoid/tanh in Model and ModelNew forward as `target` says."""

    target = ""

    def __init__(self, module: cst.Module) -> None:
        super().__init__(module)
        self.has_f = any(
            isinstance(s, cst.SimpleStatementLine)
            and isinstance(s.body[0], cst.Import)
            and any(
                dotted(a.name) == "torch.nn.functional" and a.asname and dotted(a.asname.name) == "F"
                for a in s.body[0].names
            )
            for s in module.body
        )
        # F is added as an import where absent, unless the name means something else here.
        self.f_free = self.has_f or "F" not in module_names(module)

    def operand(self, call: cst.Call) -> tuple[str, cst.BaseExpression] | None:
        """(activation, tensor) for `torch.relu(t)`, `F.relu(t)` or `t.relu()`, else None."""
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in ACTIVATIONS:
            return None
        spelled = dotted(func.value)
        if spelled in ("torch", "F"):
            if spelled == "F" and not self.has_f:
                return None
            ok = len(call.args) == 1 and not call.args[0].keyword and not call.args[0].star
            return (func.attr.value, call.args[0].value) if ok else None
        if call.args or spelled in NOT_TENSORS or (spelled and "." in spelled):
            return None
        return func.attr.value, func.value

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not self.in_forward(("Model", "ModelNew")) or (self.target == "F" and not self.f_free):
            return updated
        found = self.operand(updated)
        if found is None:
            return updated
        activation, tensor = found
        if self.target == "method":
            if isinstance(updated.func, cst.Attribute) and dotted(updated.func.value) not in ("torch", "F"):
                return updated  # already a method call
            atomic = isinstance(tensor, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or tensor.lpar
            if not atomic:
                tensor = tensor.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            new: cst.BaseExpression = cst.Call(func=cst.Attribute(value=tensor, attr=cst.Name(activation)))
        else:
            if isinstance(updated.func, cst.Attribute) and dotted(updated.func.value) == self.target:
                return updated
            new = cst.Call(func=cst.parse_expression(f"{self.target}.{activation}"), args=[cst.Arg(tensor)])
        self.changed += 1
        return new

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if self.target != "F" or self.has_f or not self.changed:
            return updated
        return updated.with_changes(body=[cst.parse_statement("import torch.nn.functional as F\n"), *updated.body])


class ActivationTorch(ActivationSpelling):
    """Spell relu/sigmoid/tanh in the forwards as `torch.relu(t)`."""

    name, target = "activation_spelling:torch", "torch"


class ActivationFunctional(ActivationSpelling):
    """Spell relu/sigmoid/tanh in the forwards as `F.relu(t)`."""

    name, target = "activation_spelling:F", "F"


class ActivationMethod(ActivationSpelling):
    """Spell relu/sigmoid/tanh in the forwards as `t.relu()`."""

    name, target = "activation_spelling:method", "method"


class ModuleAlias(Mutation):
    """Add `from triton import cdiv` after `import triton` and call `cdiv(...)` for `triton.cdiv(...)`."""

    name = "module_alias"

    def __init__(self, module: cst.Module) -> None:
        super().__init__(module)
        self.free = "cdiv" not in module_names(module)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if self.free and self.in_host() and dotted(updated.func) == "triton.cdiv":
            self.changed += 1
            return updated.with_changes(func=cst.Name("cdiv"))
        return updated

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        body = list(updated.body)
        for i, statement in enumerate(body):
            small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
            if isinstance(small, cst.Import) and any(dotted(a.name) == "triton" and not a.asname for a in small.names):
                body.insert(i + 1, cst.parse_statement("from triton import cdiv\n"))
                return updated.with_changes(body=body)
        self.changed = 0  # no `import triton` to follow: not applied
        return updated


MUTATIONS: tuple[type[Mutation], ...] = (
    ContiguousRebind,
    RenameLocals,
    EmptyLikeSpelled,
    GridLambda,
    LaunchInHelper,
    LaunchInHelperSelf,
    KeywordLaunchArgs,
    ActivationTorch,
    ActivationFunctional,
    ActivationMethod,
    ModuleAlias,
)

# ---- linting and comparing --------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    codes: tuple[str, ...]  # every finding's code, sorted, repeats kept
    worth: str
    category: str | None  # "Operator Fusion" etc., where worth is yes

    def __str__(self) -> str:
        return self.worth + (f" ({self.category})" if self.category else "")


def lint(path: str) -> Verdict:
    outcome = run([path])
    (advice,) = outcome.report.advice
    method = advice.get("optimisation method") or ""
    category = method.split(":")[0] if advice["worth_optimizing"] == "yes" else None
    return Verdict(tuple(sorted(f.code for f in outcome.report.findings)), advice["worth_optimizing"], category)


@dataclass(frozen=True)
class Outcome:
    mutation: str
    file: str  # <corpus>/<name>.py
    lost: tuple[str, ...] = ()
    gained: tuple[str, ...] = ()
    before: Verdict | None = None
    after: Verdict | None = None
    error: str | None = None  # the copy does not parse or compile

    @property
    def changed(self) -> bool:
        return bool(self.lost or self.gained or self.error) or (
            self.before is not None and self.after is not None and str(self.before) != str(self.after)
        )


def check(task: tuple[str, str, str | None, tuple[str, ...]]) -> list[Outcome]:
    """Lint one file and each of its mutated copies: one Outcome per mutation that applied."""
    path, label, keep, only = task
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="kernlint-robust-") as tmp:

        def lint_copy(folder: str, text: str) -> Verdict:
            # Same file name in a folder of its own: kernlint reads nothing from the folder's name.
            os.makedirs(os.path.join(tmp, folder))
            copy = os.path.join(tmp, folder, os.path.basename(path))
            with open(copy, "w", encoding="utf-8") as handle:
                handle.write(text)
            return lint(copy)

        before = lint_copy("original", source)
        for index, mutation in enumerate(MUTATIONS):
            if only and mutation.name not in only:
                continue
            try:
                mutated = mutation.mutate(source)
            except cst.ParserSyntaxError:
                continue  # not ours to judge: the original does not parse
            except Exception as error:  # noqa: BLE001 - a mutation's bug is reported with the rest
                outcomes.append(Outcome(mutation.name, label, error=f"mutation failed: {error!r}"))
                continue
            if mutated is None:
                continue
            try:
                cst.parse_module(mutated)
                compile(mutated, path, "exec")
            except (SyntaxError, cst.ParserSyntaxError) as error:
                outcomes.append(Outcome(mutation.name, label, error=str(error).splitlines()[0]))
                continue
            after = lint_copy(str(index), mutated)
            lost, gained = Counter(before.codes) - Counter(after.codes), Counter(after.codes) - Counter(before.codes)
            outcome = Outcome(
                mutation.name, label, tuple(sorted(lost.elements())), tuple(sorted(gained.elements())), before, after
            )
            outcomes.append(outcome)
            if keep and outcome.changed:
                target = os.path.join(keep, mutation.name.replace(":", "_"), label)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "w", encoding="utf-8") as handle:
                    handle.write(mutated)
    return outcomes


def files(corpora: Sequence[str]) -> list[tuple[str, str]]:
    """(path, <corpus>/<name>.py) of each corpus's top-level Python files, sorted."""
    out = []
    for corpus in corpora:
        for name in sorted(os.listdir(corpus)):
            path = os.path.join(corpus, name)
            if name.endswith(".py") and os.path.isfile(path):
                out.append((path, f"{os.path.basename(os.path.normpath(corpus))}/{name}"))
    return out


def codes_text(codes: Sequence[str]) -> str:
    counts = Counter(codes)
    return " ".join(f"{c}x{n}" if n > 1 else c for c, n in sorted(counts.items())) or "-"


def report(outcomes: list[Outcome], total_files: int) -> None:
    order = {m.name: i for i, m in enumerate(MUTATIONS)}
    outcomes.sort(key=lambda o: (order[o.mutation], o.file))
    print(f"{total_files} files; codes compared as multisets, verdict as worth (category)\n")
    print(f"{'mutation':28} {'applied':>7} {'changed':>7} {'verdict':>7}  lost / gained codes")
    for mutation in MUTATIONS:
        mine = [o for o in outcomes if o.mutation == mutation.name]
        changed = [o for o in mine if o.changed]
        verdicts = sum(o.before is not None and o.after is not None and str(o.before) != str(o.after) for o in mine)
        lost = [c for o in mine for c in o.lost]
        gained = [c for o in mine for c in o.gained]
        print(
            f"{mutation.name:28} {len(mine):7} {len(changed):7} {verdicts:7}  {codes_text(lost)} / {codes_text(gained)}"
        )
    changed = [o for o in outcomes if o.changed and not o.error]
    verdicts = sum(str(o.before) != str(o.after) for o in changed)
    print(f"{'total':28} {len(outcomes):7} {len(changed):7} {verdicts:7}")
    print("\nchanged (mutation, file: lost, gained, verdict):")
    for o in changed:
        verdict = f"{o.before} -> {o.after}" if str(o.before) != str(o.after) else f"{o.before} (same)"
        print(f"  {o.mutation:28} {o.file:52} lost {codes_text(o.lost):14} gained {codes_text(o.gained):14} {verdict}")
    errors = [o for o in outcomes if o.error]
    if errors:
        print("\nmutated copies that do not parse or compile (a mutation's bug):")
        for o in errors:
            print(f"  {o.mutation:28} {o.file:52} {o.error}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", default=list(CORPORA), help="folders of KernelBench-style files")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all CPUs)")
    parser.add_argument("--keep", help="write each changed copy under this folder")
    parser.add_argument("--only", action="append", default=[], help="run only this mutation (repeatable)")
    args = parser.parse_args(argv)
    unknown = set(args.only) - {m.name for m in MUTATIONS}
    if unknown:
        parser.error(f"unknown mutation(s): {', '.join(sorted(unknown))}")
    todo = [(path, label, args.keep, tuple(args.only)) for path, label in files(args.corpora)]
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(check, todo, chunksize=4))
    else:
        results = [check(task) for task in todo]
    report([o for outcomes in results for o in outcomes], len(todo))
    return 0


if __name__ == "__main__":
    sys.exit(main())
