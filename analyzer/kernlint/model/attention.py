"""Host-side attention facts (KL007, and KL004 which leaves attention to it):
matmul spellings and their operands, softmax spellings, and the chain
`scores = q @ k^T`, `probs = softmax(scores)`, `out = probs @ v` followed
through local names, scaling, masking, casts and dropout.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import libcst as cst
from kernlint.model.facts import FunctionInfo
from kernlint.model.host_values import (
    MATMUL_METHODS,
    MATMUL_OPERANDS,
    SCORE_FUNCTIONS,
    SCORE_METHODS,
    SOFTMAX_FUNCTIONS,
    SOFTMAX_MODULE,
    HostValueFacts,
)
from kernlint.model.syntax import VIEW_ATTRIBUTES, call_name, keyword, positional, walk

# Dropout modules between the softmax and `@ v` (minGPT's `self.attn_dropout`).
DROPOUT_MODULES = frozenset({"torch.nn.Dropout", "torch.nn.Dropout1d", "torch.nn.Dropout2d"})


# Calls that build a dense matrix that is zero off its diagonal.
DIAGONAL_BUILDERS = frozenset({"torch.diag", "torch.diag_embed", "torch.diagflat"})
TRIANGLE_MASKS = frozenset({"torch.tril", "torch.triu"})


@dataclass(frozen=True, eq=False, repr=False)
class StructuredProduct:
    """A dense GEMM blind to its operands' or result's structure (KL025):
    `kind` "diagonal" (an operand built by `builder`, `torch.diag(a)`) or
    "triangular" (the product masked by `builder`, `torch.tril`)."""

    product: cst.CSTNode  # the matmul (a `@` or a call)
    kind: str
    builder: cst.Call  # torch.diag(...) or torch.tril(...)


@dataclass(frozen=True, eq=False, repr=False)
class AttentionChain:
    """`scores = q @ k^T`, `probs = softmax(scores)`, `out = probs @ v`:
    the score matrix is materialized between the two matmuls."""

    scores: cst.CSTNode  # the first matmul (a `@` or a call)
    softmax: cst.Call
    output: cst.CSTNode  # the matmul that consumes the probabilities
    query: cst.BaseExpression
    key: cst.BaseExpression
    value: cst.BaseExpression


class AttentionFacts(HostValueFacts):
    # -- attention ----------------------------------------------------------
    def matmul_operands(self, node: cst.CSTNode) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
        """The two multiplied operands of `a @ b`, `torch.matmul(a, b)`,
        `torch.bmm`/`mm`/`baddbmm`/`addmm`, `a.matmul(b)`, or a two-operand
        `torch.einsum`; None for anything else."""
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
            return node.left, node.right
        if not isinstance(node, cst.Call):
            return None
        name = self.qualname(node.func)
        args = positional(node)
        if name in MATMUL_OPERANDS and self._imported(node.func):
            first, second = MATMUL_OPERANDS[name]
            if len(args) > second:
                return args[first], args[second]
            return None
        if name == "torch.einsum" and self._imported(node.func) and len(args) == 3:
            return args[1], args[2]
        if call_name(node) in MATMUL_METHODS and not self._imported(node.func) and len(args) == 1:
            return node.func.value, args[0]  # type: ignore[attr-defined]
        return None

    def is_softmax(self, call: cst.Call, scope: FunctionInfo) -> cst.BaseExpression | None:
        """The input of a softmax call (`torch.softmax(x, -1)`,
        `F.softmax(x, dim=-1)`, `x.softmax(-1)`, `self.softmax(x)` for an
        `nn.Softmax` module attribute), or None."""
        name = self.qualname(call.func)
        args = positional(call)
        if name in SOFTMAX_FUNCTIONS and self._imported(call.func):
            return args[0] if args else keyword(call, "input")
        func = call.func
        if isinstance(func, cst.Attribute) and not self._imported(func):
            receiver = func.value
            if isinstance(receiver, cst.Name) and receiver.value == "self":
                # self.softmax(x): an nn.Softmax the module holds.
                return args[0] if args and self._softmax_module(scope, func.attr.value) else None
            if func.attr.value == "softmax":
                return receiver  # x.softmax(-1)
        if isinstance(func, cst.Call) and self.qualname(func.func) == SOFTMAX_MODULE and args:
            return args[0]  # nn.Softmax(dim=-1)(x)
        if isinstance(func, cst.Name) and args and self._softmax_helper(func.value):
            return args[0]  # triton_softmax(x): the file's own softmax, a Triton kernel's launch or torch's
        return None

    def _softmax_helper(self, name: str) -> bool:
        """A function of this module named for a softmax (`triton_softmax_lastdim`) whose body launches a
        Triton kernel or calls a softmax: what a generated solution puts between `q @ k^T` and `@ v`."""
        helper = self.function(name)
        if helper is None or helper.node is None or helper.class_name or helper.decorators:
            return False
        if "softmax" not in name.lower():
            return False
        # It returns the probabilities: a helper that launches into a buffer its caller passes (and returns
        # nothing) is not the `probs = softmax(scores)` of the chain.
        if not any(isinstance(n, cst.Return) and n.value is not None for n in walk(helper.node)):
            return False
        return any(
            isinstance(call.func, cst.Subscript)
            and self.code(call.func.value).strip() in self.kernels
            or (self.qualname(call.func) in SOFTMAX_FUNCTIONS and self._imported(call.func))
            for call in helper.calls
        )

    def _dropout_module(self, scope: FunctionInfo, attribute: str) -> bool:
        """`self.<attribute>` is an nn.Dropout the module holds (elementwise on the probabilities)."""
        cls = self.class_of(scope)
        if cls is None:
            return False
        values = self._self_attributes(cls).get(attribute, [])
        return bool(values) and all(
            isinstance(v, cst.Call) and self.qualname(v.func) in DROPOUT_MODULES for v in values
        )

    def _softmax_module(self, scope: FunctionInfo, attribute: str) -> bool:
        cls = self.class_of(scope)
        if cls is None:
            return False
        values = self._self_attributes(cls).get(attribute, [])
        return bool(values) and all(isinstance(v, cst.Call) and self.qualname(v.func) == SOFTMAX_MODULE for v in values)

    def attention_chains(self, function: FunctionInfo) -> list[AttentionChain]:
        """Every `softmax(q @ k^T) @ v` in `function`, followed through local
        names and the scaling, masking, casting and dropout between them,
        where neither matmul multiplies by a module parameter (a weight)."""
        chains = self._chains.get(id(function))
        if chains is not None:
            return chains
        chains = []
        seen: set[int] = set()
        products = [*function.matmul_ops, *(c for c in function.calls if self.matmul_operands(c) is not None)]
        for output in products:
            operands = self.matmul_operands(output)
            assert operands is not None
            for side, other in ((operands[0], operands[1]), (operands[1], operands[0])):
                softmax = self._trace(function, side, lambda n, f=function: self._as_softmax(n, f))
                if softmax is None:
                    continue
                source = self.is_softmax(softmax, function)
                assert source is not None
                scores = self._trace(function, source, lambda n: n if self.matmul_operands(n) is not None else None)
                if scores is None or id(scores) in seen:
                    continue
                query, key = self.matmul_operands(scores)  # type: ignore[misc]
                if any(self._is_weight(function, n) for n in (query, key, other)):
                    continue
                if self._root(other) in (self._root(query), self._root(key)):
                    continue  # `softmax(x @ w.t()) @ w`: one weight both ways (a loss gradient), not q, k and v
                seen.add(id(scores))
                chains.append(AttentionChain(scores, softmax, output, query, key, other))
                break
        self._chains[id(function)] = chains
        return chains

    @cached_property
    def _chains(self) -> dict[int, list[AttentionChain]]:
        return {}

    # -- GEMMs blind to structure ---------------------------------------------
    def structured_products(self, function: FunctionInfo) -> list[StructuredProduct]:
        """Matmuls in `function` with an operand built by `torch.diag(...)`
        (directly or through a local name), and matmuls whose result is
        masked by `torch.tril`/`torch.triu` (or `.tril()`/`.triu()`)."""
        found: list[StructuredProduct] = []
        products = [*function.matmul_ops, *(c for c in function.calls if self.matmul_operands(c) is not None)]
        for product in products:
            operands = self.matmul_operands(product)
            assert operands is not None
            for operand in operands:
                builder = self._through_names(function, operand)
                if isinstance(builder, cst.Call) and self.qualname(builder.func) in DIAGONAL_BUILDERS:
                    if self._imported(builder.func):
                        found.append(StructuredProduct(product, "diagonal", builder))
                        break
        by_id = {id(p): p for p in products}
        for call in function.calls:
            name = self.qualname(call.func)
            args = positional(call)
            if name in TRIANGLE_MASKS and self._imported(call.func) and args:
                masked = args[0]
            elif call_name(call) in ("tril", "triu") and not self._imported(call.func):
                masked = call.func.value  # type: ignore[attr-defined]
            else:
                continue
            target = self._through_names(function, masked)
            if target is not None and id(target) in by_id:
                found.append(StructuredProduct(target, "triangular", call))
        return found

    def _through_names(self, function: FunctionInfo, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """`node`, or the value a local name holds where it is read (one hop per assignment, at most 4)."""
        current: cst.BaseExpression | None = node
        for _ in range(4):
            if not isinstance(current, cst.Name) or current.value in function.params:
                return current
            current = self.assigned_value(function, current.value, before=current, strict=True)
        return current

    def _as_softmax(self, node: cst.CSTNode, scope: FunctionInfo) -> cst.Call | None:
        if isinstance(node, cst.Call) and self.is_softmax(node, scope) is not None:
            return node
        return None

    def _trace(self, scope: FunctionInfo, node: cst.BaseExpression, found, depth: int = 0):
        """Follow `node` back through local names and score-preserving ops
        until `found(expr)` answers something."""
        if depth > 12:
            return None
        hit = found(node)
        if hit is not None:
            return hit
        if isinstance(node, cst.Name):
            if node.value in scope.params:
                return None
            value = self.assigned_value(scope, node.value, before=node, strict=True)
            return self._trace(scope, value, found, depth + 1) if value is not None else None
        if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, cst.MatrixMultiply):
            return self._trace(scope, node.left, found, depth + 1) or self._trace(scope, node.right, found, depth + 1)
        if isinstance(node, cst.UnaryOperation):
            return self._trace(scope, node.expression, found, depth + 1)
        if isinstance(node, cst.Attribute) and node.attr.value in VIEW_ATTRIBUTES:
            return self._trace(scope, node.value, found, depth + 1)
        if isinstance(node, cst.Call):
            method = call_name(node)
            if method in SCORE_METHODS and not self._imported(node.func):
                return self._trace(scope, node.func.value, found, depth + 1)  # type: ignore[attr-defined]
            name = self.qualname(node.func)
            args = positional(node)
            if name in SCORE_FUNCTIONS and self._imported(node.func) and args:
                return self._trace(scope, args[0], found, depth + 1)
            func = node.func
            if (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "self"
                and len(args) == 1
                and self._dropout_module(scope, func.attr.value)
            ):
                return self._trace(scope, args[0], found, depth + 1)  # self.attn_dropout(att): minGPT
            if name == "torch.where" and self._imported(node.func) and len(args) == 3:
                return self._trace(scope, args[1], found, depth + 1) or self._trace(scope, args[2], found, depth + 1)
        return None

    def _root(self, node: cst.BaseExpression) -> str:
        """The tensor under transposing views (`w.t()`, `w.T`, `w.transpose(0, 1)`), as written."""
        while True:
            if isinstance(node, cst.Attribute) and node.attr.value in VIEW_ATTRIBUTES:
                node = node.value
            elif isinstance(node, cst.Call) and call_name(node) in ("t", "transpose", "permute", "contiguous"):
                node = node.func.value  # type: ignore[attr-defined]
            else:
                return self.code(node)

    def _is_weight(self, scope: FunctionInfo, node: cst.BaseExpression) -> bool:
        """A module parameter or buffer (`self.W`, `self.W.t()`): the
        multiply is a projection, not attention."""
        while isinstance(node, (cst.Call, cst.Attribute)):
            if isinstance(node, cst.Attribute):
                if isinstance(node.value, cst.Name) and node.value.value == "self":
                    return self.module_tensor(node, scope) is not None  # type: ignore[attr-defined]
                node = node.value
            elif isinstance(node.func, cst.Attribute) and not self._imported(node.func):
                node = node.func.value
            else:
                return False
        return False
