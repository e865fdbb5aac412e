"""Kernel-side facts: what a `@triton.jit` body loads and from which pointer
parameters, which `triton.language` calls it makes (through the jit
functions it calls), and which constexprs size its tiles.
"""

from __future__ import annotations

import libcst as cst
from kernlint.model.base import ModelBase, kernel_fact
from kernlint.model.facts import TL, ConstexprValues, FunctionInfo, Kernel
from kernlint.model.syntax import keyword, literal_value, names_in, positional

# triton.language calls whose shape argument sizes a tile: name -> (keyword,
# position) of the shape, None for tl.arange whose every argument counts.
TILE_SHAPERS: dict[str, tuple[str, int] | None] = {
    "arange": None,
    "zeros": ("shape", 0),
    "full": ("shape", 0),
    "make_block_ptr": ("block_shape", 4),
    "make_tensor_descriptor": ("block_shape", 3),
}


class KernelFacts(ModelBase):
    def dot_tf32_off(self, kernel: Kernel, call: cst.Call) -> tuple[cst.Arg, str] | None:
        """The argument of a `tl.dot` call that runs fp32 operands without TF32
        (`input_precision="ieee"`, `allow_tf32=False`, or a constexpr flag
        that every launch and config sets so), with its text; None if none."""
        for arg in call.args:
            if arg.keyword is None or arg.keyword.value not in ("input_precision", "allow_tf32"):
                continue
            value: object = literal_value(arg.value)
            spelled = ""
            if isinstance(arg.value, cst.Name) and arg.value.value in kernel.constexprs:
                values = self.constexpr_values(kernel, arg.value.value)
                if not values.complete or len(values.values) != 1:
                    continue
                value = next(iter(values.values))
                spelled = f" ({arg.value.value}={value!r} at every launch)"
            if arg.keyword.value == "input_precision" and value == "ieee":
                return arg, f'input_precision="ieee"{spelled}'
            if arg.keyword.value == "allow_tf32" and value is False:
                return arg, f"allow_tf32=False{spelled}"
        return None

    def constexpr_values(self, kernel: Kernel, name: str) -> ConstexprValues:
        """The values constexpr `name` of `kernel` takes: from each autotune
        config that sets it, from each launch's argument (a literal or a
        constant, see `constant_value`), else from the parameter's default.
        A heuristic that sets it, a config built elsewhere, a computed
        argument or a `*args` launch make the answer incomplete."""
        values: set[object] = set()
        complete = True
        if name in kernel.heuristics or "*" in kernel.heuristics:
            complete = False
        by_config = False
        if kernel.autotune is not None:
            if kernel.autotune.configs is None:
                complete, by_config = False, True
            for config in kernel.autotune.configs or ():
                if name in config:
                    by_config = True
                    if config[name] is None:
                        complete = False
                    else:
                        values.add(config[name])
        param = kernel.param(name)
        default = literal_value(param.default) if param is not None and param.default is not None else None
        launches = self.launches_of(kernel)
        for launch in launches:
            argument = launch.arguments.get(name)
            if argument is not None:
                value = self.constant_value(argument, launch.caller)
                if value is None:
                    complete = False
                else:
                    values.add(value)
            elif by_config or name in kernel.heuristics:
                continue
            elif launch.has_star_args or default is None:
                complete = False
            else:
                values.add(default)
        if not launches and not by_config:
            # Launched from another file (or not at all): only a default is known.
            complete = False
            if default is not None:
                values.add(default)
        return ConstexprValues(frozenset(values), complete)

    def constexpr_floor(self, kernel: Kernel, name: str) -> int | None:
        """The least value integer constexpr `name` of `kernel` can take,
        where every launch passes it (no autotune config or heuristic sets
        it) and each argument is a known integer or a `max(...)` with one
        (`BLOCK_K = max(16, triton.next_power_of_2(K))`: at least 16 at any
        K). None when any launch's value has no known floor."""
        if kernel.autotune is not None or name in kernel.heuristics or "*" in kernel.heuristics:
            return None
        launches = self.launches_of(kernel)
        floors: list[int] = []
        for launch in launches:
            argument = launch.arguments.get(name)
            floor = None if argument is None else self._int_floor(argument, launch.caller, 0)
            if floor is None:
                return None
            floors.append(floor)
        return min(floors) if floors else None

    def _int_floor(self, node: cst.BaseExpression, scope: FunctionInfo, depth: int) -> int | None:
        if depth > 4:
            return None
        value = self.constant_value(node, scope)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(node, cst.Name):
            local = [v for v, _ in self._assignments_to(scope, node.value)]
            return self._int_floor(local[0], scope, depth + 1) if len(local) == 1 else None
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "max":
            known = [f for f in (self._int_floor(a.value, scope, depth + 1) for a in node.args) if f is not None]
            return max(known) if known and all(a.keyword is None and not a.star for a in node.args) else None
        return None

    @kernel_fact
    def pointer_params(self, kernel: Kernel, node: cst.BaseExpression, depth: int = 0) -> list[str]:
        """The kernel's pointer parameters an address expression is built
        from (`a_ptr + offs * stride`, through assignments and block
        pointers)."""
        if depth > 12:
            return []
        names: list[str] = []
        for name_node in names_in(node):
            param = kernel.param(name_node.value)
            if param is not None:
                if not param.constexpr and param.name not in names and _is_pointer_like(param.name):
                    names.append(param.name)
                continue
            value = self.assigned_value(kernel.function, name_node.value, before=node)
            if value is not None and value is not node:
                for found in self.pointer_params(kernel, value, depth + 1):
                    if found not in names:
                        names.append(found)
        return names

    @kernel_fact
    def loaded_pointers(self, kernel: Kernel, node: cst.BaseExpression, depth: int = 0) -> list[str] | None:
        """If a kernel value comes from `tl.load(...)`, the pointer parameters
        it was loaded from; None if it was not (visibly) loaded."""
        if depth > 12:
            return None
        if isinstance(node, cst.Name):
            value = self.assigned_value(kernel.function, node.value, before=node)
            return None if value is None else self.loaded_pointers(kernel, value, depth + 1)
        if isinstance(node, cst.Call):
            if self.is_tl(node.func, "load") and node.args:
                return self.pointer_params(kernel, node.args[0].value)
            return None
        return None

    @kernel_fact
    def kernel_uses(self, kernel: Kernel, *names: str) -> list[cst.Call]:
        """Calls to `triton.language.<name>` in the kernel and in the jit
        functions of this file it calls."""
        found: list[cst.Call] = []
        seen: set[int] = set()
        wanted = {f"{TL}.{name}" for name in names}
        pending = [kernel.function]
        while pending:
            function = pending.pop()
            if id(function) in seen:
                continue
            seen.add(id(function))
            found.extend(c for c in function.calls if self.qualname(c.func) in wanted)
            pending.extend(f for f in self.called_functions(function) if self.kernel_of(f) is not None)
        return found

    @kernel_fact
    def tile_constexprs(self, kernel: Kernel) -> tuple[str, ...]:
        """The constexpr parameters that size the kernel's tiles: those in the
        shape of `tl.arange`, `tl.zeros`/`tl.full`, a block pointer's or a
        tensor descriptor's `block_shape` (directly or through a local name),
        plus `GROUP*` constexprs that order the tiles. In signature order."""
        constexprs = set(kernel.constexprs)
        used: set[str] = set()
        for call in kernel.function.calls:
            for name, shape_at in TILE_SHAPERS.items():
                if not self.is_tl(call.func, name):
                    continue
                if shape_at is None:
                    shapes = positional(call)
                else:
                    keyword_name, index = shape_at
                    shape = keyword(call, keyword_name)
                    args = positional(call)
                    if shape is None and index < len(args):
                        shape = args[index]
                    shapes = [shape] if shape is not None else []
                for shape in shapes:
                    for name_node in names_in(shape):
                        if name_node.value in constexprs:
                            used.add(name_node.value)
                            continue
                        value = self.assigned_value(kernel.function, name_node.value, before=call)
                        if value is not None:
                            used.update(n.value for n in names_in(value) if n.value in constexprs)
        used.update(name for name in constexprs if "GROUP" in name.upper())
        return tuple(name for name in kernel.constexprs if name in used)


def _is_pointer_like(name: str) -> bool:
    # Every non-constexpr parameter may be a pointer; integer sizes and
    # strides only ever appear in offsets, and excluding names that read
    # like sizes keeps "a_ptr + offs * stride_am" from naming stride_am.
    lowered = name.lower()
    return not (
        lowered.startswith("stride")
        or lowered in ("m", "n", "k")
        or lowered.startswith("num_")
        or lowered.endswith("_stride")
        or lowered in ("n_elements", "numel", "size")
    )
