"""Tuning facts (KL003): whether a kernel is autotuned by any means the
file shows (`@triton.autotune`, a decorator of the project that takes
`configs=` and `key=` like FlagGems' `@libtuner`, a name bound to a
`triton.autotune(...)` call), and where a launch argument comes from: fixed
in the source, per dtype only, a problem dimension, or chosen per problem.
"""

from __future__ import annotations

from functools import cached_property

import libcst as cst
from kernlint.model.base import kernel_fact
from kernlint.model.facts import TRITON_AUTOTUNE, FunctionInfo, Kernel
from kernlint.model.host import HostFacts
from kernlint.model.syntax import call_name, keyword, positional, walk

SHAPE_CALLS = frozenset({"size", "dim", "numel", "stride"})

# KL003's autotuning set, (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages): skinny (few rows, long K)
# through square problems. The rule's plan writes it; the cost model prices the fix as the best of it at the
# file's shapes (calibrated per config by the triton_dot_tile_* probes).
AUTOTUNE_CONFIGS = (
    (16, 64, 128, 4, 4),
    (32, 128, 64, 4, 4),
    (64, 64, 64, 4, 3),
    (128, 128, 32, 8, 3),
)
# Triton's launch defaults where a launch names neither.
DEFAULT_NUM_WARPS, DEFAULT_NUM_STAGES = 4, 3

# How a launch argument's value is decided (see `argument_origin`).
FIXED, PER_DTYPE, DIMENSION, CHOSEN = "fixed", "per-dtype", "dimension", "chosen"
# A problem dimension rounded up to a legal tile (`max(16, next_power_of_2(h))`).
PADDED = "padded dimension"


class TuningFacts(HostFacts):
    @kernel_fact
    def autotuner(self, kernel: Kernel) -> str | None:
        """The decorator that autotunes the kernel, as written, or None."""
        if kernel.autotune is not None:
            return "triton.autotune"
        for decorator in kernel.node.decorators:
            target = decorator.decorator
            call = target if isinstance(target, cst.Call) else None
            if call is not None and keyword(call, "configs") is not None and keyword(call, "key") is not None:
                return self.code(call.func)  # a project's wrapper of the autotuner (`@libtuner(...)`)
            if isinstance(target, cst.Name):
                value = self.assigned_value(self.top, target.value)
                if isinstance(value, cst.Call) and self.qualname(value.func) == TRITON_AUTOTUNE:
                    return target.value
        return None

    def argument_origin(self, scope: FunctionInfo, node: cst.BaseExpression, depth: int = 0) -> str:
        """FIXED: a literal or constant; PER_DTYPE: a lookup keyed only on a
        dtype (`CONFIGS[x.dtype]["BLOCK_M"]`); DIMENSION: a problem size
        itself (`d` from `b, m, h, d = q.shape`, `x.size(1)`); PADDED: a
        dimension rounded up to a power of two (`max(16,
        triton.next_power_of_2(h))`), which the caller reads by what the
        constexpr is (a head count padded for tl.dot, or a BLOCK_N spanning
        all of N); CHOSEN: anything else (a branch, a size-keyed table, a
        function, a cap like `min(64, next_power_of_2(M))`), which is how a
        tuned config is picked."""
        if self.constant_value(node, scope) is not None:
            return FIXED
        if depth > 6:
            return CHOSEN
        if isinstance(node, cst.Subscript):
            if _is_shape(node.value):
                return DIMENSION
            keys = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
            if keys and all(self._is_dtype(scope, k) or self.constant_value(k, scope) is not None for k in keys):
                inner = self.argument_origin(scope, node.value, depth + 1)
                if inner in (PER_DTYPE, FIXED) or any(self._is_dtype(scope, k) for k in keys):
                    return PER_DTYPE
            return CHOSEN
        if isinstance(node, cst.Call):
            if call_name(node) in SHAPE_CALLS:
                return DIMENSION
            if self._rounds_up_a_dimension(scope, node, depth):
                return PADDED
            return CHOSEN  # a branch, a table, `min(64, next_power_of_2(M))`: picked per problem
        if isinstance(node, cst.Attribute) and node.attr.value in ("ndim",):
            return DIMENSION
        if isinstance(node, cst.Name):
            if node.value in self._shape_names(scope):
                return DIMENSION
            values = [v for t, v, _ in scope.assignments if t == node.value]
            if len(values) == 1:
                return self.argument_origin(scope, values[0], depth + 1)
            if not values and node.value in scope.params:
                if node.value.upper() in ("M", "N", "K", "D", "H"):
                    return DIMENSION
                return self._origin_at_call_sites(scope, node.value, depth) or CHOSEN
        return CHOSEN

    def _origin_at_call_sites(self, helper: FunctionInfo, param: str, depth: int) -> str | None:
        """A helper's parameter (`def _launch(a, out, BLOCK_M): kernel[grid](..., BLOCK_M=BLOCK_M)`) as every
        call of the helper in this file sets it (`_launch(a, out, BLOCK_M)` after `BLOCK_M = 128`, or its
        default where a call leaves it out): their one origin, or None where the file never calls the helper
        by name or its calls differ (what a caller outside the file passes is its choice)."""
        given = self._call_site_arguments(helper, param)
        origins = {self.argument_origin(scope, value, depth + 1) for scope, value in given or ()}
        return origins.pop() if len(origins) == 1 else None

    def constant_at_call_sites(self, scope: FunctionInfo, node: cst.BaseExpression) -> object | None:
        """`node`'s constant value, or, for a parameter of the helper `scope`, the one constant every call of
        the helper in this file passes it; None otherwise."""
        value = self.constant_value(node, scope)
        if value is not None or not isinstance(node, cst.Name) or node.value not in scope.params:
            return value
        given = self._call_site_arguments(scope, node.value)
        values = {repr(self.constant_value(v, s)) for s, v in given or ()}
        if not given or len(values) != 1:
            return None
        return self.constant_value(given[0][1], given[0][0])

    def _call_site_arguments(
        self, helper: FunctionInfo, param: str
    ) -> list[tuple[FunctionInfo, cst.BaseExpression]] | None:
        """What each call of the module function `helper` in this file binds `param` to, with the scope that
        expression is read in (the caller's, or the helper's for its default); None where a call binds it in a
        way not followed (*args) or the file never calls the helper by name."""
        if helper.node is None or helper.class_name is not None:
            return None
        params = list(helper.node.params.params)
        index = next((i for i, p in enumerate(params) if p.name.value == param), None)
        if index is None:
            return None
        found: list[tuple[FunctionInfo, cst.BaseExpression]] = []
        for call, caller in self.callers(helper):
            if caller is helper or caller is self.top:
                continue  # its own recursion; a module-level call (a script's, at sizes of its own)
            if any(a.star for a in call.args):
                return None
            given = positional(call)
            named = keyword(call, param)
            default = params[index].default
            if index < len(given):
                found.append((caller, given[index]))
            elif named is not None:
                found.append((caller, named))
            elif default is not None:
                found.append((helper, default))
            else:
                return None
        return found or None

    def _rounds_up_a_dimension(self, scope: FunctionInfo, call: cst.Call, depth: int) -> bool:
        """`triton.next_power_of_2(h)` of a problem dimension, or `max(16,
        that)`: the dimension padded up to a legal tile. A cap (`min(64,
        ...)`) adapts the tile to small problems, which is a choice."""
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        name = self.qualname(call.func) or ""
        if name.split(".")[-1] == "next_power_of_2" and len(args) == 1:
            return self.argument_origin(scope, args[0], depth + 1) in (DIMENSION, PADDED)
        if name == "max" and len(args) == 2:
            origins = {self.argument_origin(scope, a, depth + 1) for a in args}
            return FIXED in origins and bool(origins & {DIMENSION, PADDED})
        return False

    def _is_dtype(self, scope: FunctionInfo, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Attribute) and node.attr.value == "dtype":
            return True
        if isinstance(node, cst.Name):
            if "dtype" in node.value.lower():
                return True
            value = self.assigned_value(scope, node.value, before=node, strict=True)
            return value is not None and value is not node and self._is_dtype(scope, value)
        return False

    def _shape_names(self, scope: FunctionInfo) -> frozenset[str]:
        """Names unpacked from a shape in a function (`b, m, h, d = q.shape`)."""
        cached = self._shape_index.get(id(scope))
        if cached is None:
            names: set[str] = set()
            if scope.node is not None:
                for node in walk(scope.node.body):
                    if isinstance(node, cst.Assign) and _is_shape(node.value):
                        for target in node.targets:
                            if isinstance(target.target, (cst.Tuple, cst.List)):
                                names.update(n.value for n in walk(target.target) if isinstance(n, cst.Name))
            cached = self._shape_index[id(scope)] = frozenset(names)
        return cached

    @cached_property
    def _shape_index(self) -> dict[int, frozenset[str]]:
        return {}


def _is_shape(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Attribute):
        return node.attr.value == "shape"
    return isinstance(node, cst.Call) and call_name(node) == "size" and not node.args
