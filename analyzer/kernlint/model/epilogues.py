"""Host-side def-use after a GEMM (KL004): matmul spellings, the output of a
Triton GEMM launch or of a local wrapper that returns one, and the chain of
elementwise ops (scale, bias, activation, cast) that follow it before the
value is returned or stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import libcst as cst
from kernlint.model.facts import ClassInfo, FunctionInfo, Launch
from kernlint.model.host_flow import HostFlowFacts, _Index
from kernlint.model.host_syntax import _assigned_name, _rebound, _short, _walk_no_scopes
from kernlint.model.syntax import call_name, keyword, literal_value, positional, uncopied, walk
from kernlint.model.torch_api import CAST_METHODS, FREE_ATTRIBUTES, MODULE_MOVES, TORCH_DTYPE

MATMUL_FUNCTIONS = frozenset(
    {"torch.matmul", "torch.mm", "torch.bmm", "torch.addmm", "torch.baddbmm", "torch.nn.functional.linear"}
)


MATMUL_METHODS = frozenset({"matmul", "mm", "bmm"})


# Convolutions by function: cuDNN runs them; their elementwise tail is a
# kernel of its own after them (issue 27, KernelBench level 2).
CONV_FUNCTIONS = frozenset(
    f"torch.nn.functional.{n}"
    for n in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
)


# nn modules built in `__init__` whose call is a GEMM (`self.fc = nn.Linear(...)`)
# or a convolution, by class.
LINEAR_MODULES = frozenset({"torch.nn.Linear", "torch.nn.LazyLinear"})
CONV_MODULES = frozenset(
    f"torch.nn.{prefix}{kind}{d}d" for prefix in ("", "Lazy") for kind in ("Conv", "ConvTranspose") for d in (1, 2, 3)
)


# Normalizations that keep the tensor's shape: a fused tail computes their
# statistics in the same kernel (per group or channel), then applies them.
NORM_FUNCTIONS = frozenset({"torch.nn.functional.group_norm", "torch.nn.functional.batch_norm", "torch.group_norm"})
NORM_MODULES = frozenset({"torch.nn.GroupNorm", "torch.nn.BatchNorm1d", "torch.nn.BatchNorm2d", "torch.nn.BatchNorm3d"})


# Reductions over a dimension: the tail reduces the tile it already holds.
REDUCTION_FUNCTIONS = frozenset(f"torch.{n}" for n in ("mean", "sum", "amax", "amin", "logsumexp"))
REDUCTION_METHODS = frozenset({"mean", "sum", "amax", "amin", "logsumexp"})


# Elementwise ops that run as their own kernel, by torch function.
ELEMENTWISE_FUNCTIONS = frozenset(
    {
        f"torch.{n}"
        for n in (
            "relu",
            "sigmoid",
            "tanh",
            "exp",
            "exp2",
            "log",
            "log1p",
            "expm1",
            "sqrt",
            "rsqrt",
            "abs",
            "neg",
            "clamp",
            "clip",
            "add",
            "sub",
            "mul",
            "div",
            "where",
            "pow",
            "erf",
            "sin",
            "cos",
            "maximum",
            "minimum",
            "square",
            "reciprocal",
            "sign",
            "round",
            "floor",
            "ceil",
            "nan_to_num",
            "clamp_min",
            "clamp_max",
            "special.expit",
            "nn.functional.relu",
            "nn.functional.gelu",
            "nn.functional.silu",
            "nn.functional.sigmoid",
            "nn.functional.tanh",
            "nn.functional.leaky_relu",
            "nn.functional.elu",
            "nn.functional.selu",
            "nn.functional.softplus",
            "nn.functional.mish",
            "nn.functional.hardswish",
            "nn.functional.hardsigmoid",
            "nn.functional.relu6",
            "nn.functional.logsigmoid",
            "nn.functional.hardtanh",
            "nn.functional.celu",
            "nn.functional.gelu",
        )
    }
)


ELEMENTWISE_METHODS = frozenset(
    {
        "relu",
        "relu_",
        "sigmoid",
        "sigmoid_",
        "tanh",
        "tanh_",
        "exp",
        "exp_",
        "log",
        "clamp",
        "clamp_",
        "clamp_min",
        "clamp_max",
        "clip",
        "add",
        "add_",
        "sub",
        "sub_",
        "mul",
        "mul_",
        "div",
        "div_",
        "neg",
        "abs",
        "sqrt",
        "rsqrt",
        "pow",
        "square",
        "reciprocal",
        "sign",
        "masked_fill",
        "masked_fill_",
        "erf",
        "addcmul",
        "lerp",
    }
)


# nn modules that apply an elementwise function (`self.act = nn.GELU()`).
ACTIVATION_MODULES = frozenset(
    {
        f"torch.nn.{n}"
        for n in (
            "ReLU",
            "GELU",
            "SiLU",
            "Sigmoid",
            "Tanh",
            "LeakyReLU",
            "ELU",
            "SELU",
            "Softplus",
            "Mish",
            "Hardswish",
            "Hardsigmoid",
            "ReLU6",
            "Hardtanh",
            "Identity",
        )
    }
)


# Ops that keep the data where it is (views) or only move metadata: a value
# passes through them on its way to the next elementwise op.
FREE_METHODS = frozenset(
    {
        "view",
        "reshape",
        "view_as",
        "reshape_as",
        "transpose",
        "permute",
        "t",
        "squeeze",
        "unsqueeze",
        "flatten",
        "unflatten",
        "expand",
        "expand_as",
        "contiguous",
        "narrow",
        "detach",
        "swapaxes",
        "movedim",
    }
)


FREE_FUNCTIONS = frozenset(
    {"torch.reshape", "torch.transpose", "torch.permute", "torch.squeeze", "torch.unsqueeze", "torch.flatten"}
)


# A GEMM-free chain (KL023) also runs through the ops that end or reshape a
# tail rather than continue a GEMM's epilogue: normalizations over a row,
# scans, reversals, gathers and losses, each a kernel and a pass of its own.
# KL004 keeps its narrower tables: after a GEMM these are not its epilogue.
CHAIN_NORM_FUNCTIONS = frozenset(
    {
        f"torch.{n}"
        for n in (
            "softmax",
            "log_softmax",
            "nn.functional.softmax",
            "nn.functional.log_softmax",
            "nn.functional.normalize",
            "nn.functional.layer_norm",
            "nn.functional.rms_norm",
            "nn.functional.instance_norm",
            "cumsum",
            "cumprod",
            "flip",
            "gather",
            "tril",
            "triu",
        )
    }
)
CHAIN_REDUCTION_FUNCTIONS = frozenset(
    {
        f"torch.{n}"
        for n in (
            "norm",
            "linalg.norm",
            "linalg.vector_norm",
            "var",
            "std",
            "prod",
            "nn.functional.mse_loss",
            "nn.functional.l1_loss",
            "nn.functional.smooth_l1_loss",
            "nn.functional.huber_loss",
            "nn.functional.kl_div",
            "nn.functional.nll_loss",
            "nn.functional.binary_cross_entropy",
            "nn.functional.cosine_similarity",
            "nn.functional.pairwise_distance",
        )
    }
)
# One call that torch runs as several kernels, with what each does: a chain
# of its own (F.cross_entropy is log_softmax, written in full, then nll_loss).
# A pointwise loss is written in full, then reduced (ATen's loss kernels, then
# the mean); a triplet margin loss is two pairwise distances (x1 - x2, + eps,
# a norm over the last dimension), then its margin, clamp and mean.
_POINTWISE_LOSS = (("pointwise loss", "elementwise"), ("mean", "reduction"))
_TRIPLET_LOSS = (("x1 - x2", "elementwise"), ("+ eps", "elementwise"), ("norm", "reduction"), ("mean", "reduction"))
CHAIN_COMPOSITE_FUNCTIONS = {
    "torch.nn.functional.cross_entropy": (("log_softmax", "norm"), ("nll_loss", "reduction")),
    **{
        f"torch.nn.functional.{name}": _POINTWISE_LOSS
        for name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy_with_logits")
    },
    "torch.nn.functional.triplet_margin_loss": _TRIPLET_LOSS,
}
# The loss modules that run those functions.
CHAIN_COMPOSITE_MODULES = {
    "torch.nn.CrossEntropyLoss": CHAIN_COMPOSITE_FUNCTIONS["torch.nn.functional.cross_entropy"],
    **{
        f"torch.nn.{name}": _POINTWISE_LOSS
        for name in ("MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCEWithLogitsLoss")
    },
    "torch.nn.TripletMarginLoss": _TRIPLET_LOSS,
}
CHAIN_NORM_METHODS = frozenset({"softmax", "log_softmax", "cumsum", "cumprod", "flip", "gather", "tril", "triu"})
CHAIN_REDUCTION_METHODS = frozenset({"norm", "var", "std", "prod"})
CHAIN_ELEMENTWISE_FUNCTIONS = frozenset(
    {
        f"torch.{n}"
        for n in (
            "nn.functional.softsign",
            "nn.functional.tanhshrink",
            "nn.functional.dropout",
            "dropout",
            "log2",
            "log10",
            "sinh",
            "cosh",
        )
    }
)
CHAIN_ELEMENTWISE_MODULES = frozenset({"torch.nn.Dropout", "torch.nn.Softsign", "torch.nn.Tanhshrink"})
CHAIN_NORM_MODULES = frozenset(
    {
        "torch.nn.Softmax",
        "torch.nn.LogSoftmax",
        "torch.nn.LayerNorm",
        "torch.nn.RMSNorm",
        "torch.nn.InstanceNorm1d",
        "torch.nn.InstanceNorm2d",
        "torch.nn.InstanceNorm3d",
    }
)


# Pooling layers after a convolution: the tail's one pass reads the conv's output and writes the pooled result.
CHAIN_POOL_MODULES = frozenset(
    f"torch.nn.{kind}Pool{dims}d" for kind in ("Max", "Avg", "AdaptiveAvg", "AdaptiveMax") for dims in (1, 2, 3)
)
CHAIN_POOL_FUNCTIONS = frozenset(
    f"torch.nn.functional.{kind}_pool{dims}d"
    for kind in ("max", "avg", "adaptive_avg", "adaptive_max")
    for dims in (1, 2, 3)
)


# Methods that move or re-cast a module and return it.


ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)


AUG_ARITHMETIC = (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign, cst.PowerAssign)


def _returned_name(value: cst.BaseExpression) -> str | None:
    """The tensor a return statement hands back: `out`, or a view of it
    (`out.view(shape)`, `out.reshape(...)`), which moves no data."""
    while (
        isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in FREE_METHODS
    ):
        value = value.func.value
    return value.value if isinstance(value, cst.Name) else None


@dataclass(frozen=True)
class Epilogue:
    """The elementwise ops that consume a GEMM's result before it is returned
    or stored: `ops` in order, as short spellings (`* scale`, `torch.relu`,
    `.to(torch.float16)`); `casts` says which of them are dtype casts."""

    producer: cst.CSTNode
    ops: tuple[str, ...]
    casts: tuple[bool, ...]
    nodes: tuple[cst.CSTNode, ...]
    # Per op: "elementwise", "cast", "norm" (group/batch norm) or "reduction".
    kinds: tuple[str, ...] = ()

    @property
    def full_size_ops(self) -> int:
        """The ops before the first reduction that are not a cast: each a
        pass over the whole product."""
        count = 0
        for kind in self.kinds:
            if kind == "reduction":
                break
            count += kind in ("elementwise", "norm")
        return count


_Op = tuple[str, bool, cst.CSTNode, str]


def _integer_literal(node: cst.BaseExpression) -> bool:
    """`1`, `-1`: a dimension, where a tensor would be an operand."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer)


def self_attribute_root(node: cst.BaseExpression) -> bool:
    """`self.W`, `self.W.T`, `self.weight.t()`: a module attribute under views."""
    while True:
        if isinstance(node, cst.Attribute):
            if isinstance(node.value, cst.Name) and node.value.value == "self":
                return True
            node = node.value
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("t", "transpose")
        ):
            node = node.func.value
        else:
            return False


def _constant_like(node: cst.BaseExpression) -> bool:
    """A number, or a module attribute (`self.scale`, `self.bias`): the same for every row of the product."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return _constant_like(node.expression)
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"


def _merged(chains: list[Epilogue]) -> list[Epilogue]:
    """Chains that share an op are one chain (`0.5 * x * (1 + tanh(x + x**3))`
    reads x three times): their ops together, each once, in the order of
    the first chain that reached them."""
    groups: list[list[Epilogue]] = []
    for chain in chains:
        ids = {id(n) for n in chain.nodes}
        touching = [g for g in groups if any(ids & {id(n) for n in c.nodes} for c in g)]
        merged = [chain] + [c for g in touching for c in g]
        groups = [g for g in groups if g not in touching] + [merged]
    out = []
    for group in groups:
        seen: dict[tuple[int, str], tuple[str, bool, cst.CSTNode, str]] = {}
        for chain in sorted(group, key=lambda c: -len(c.nodes)):
            for op, cast, node, kind in zip(chain.ops, chain.casts, chain.nodes, chain.kinds):
                seen.setdefault((id(node), kind), (op, cast, node, kind))  # a composite call's kernels each count
        longest = max(group, key=lambda c: len(c.nodes))
        ops = list(seen.values())
        out.append(
            Epilogue(
                longest.producer,
                tuple(o[0] for o in ops),
                tuple(o[1] for o in ops),
                tuple(o[2] for o in ops),
                tuple(o[3] for o in ops),
            )
        )
    return out


def _epilogue(producer: cst.CSTNode, ops: list[_Op]) -> Epilogue:
    kinds = tuple("cast" if o[1] else o[3] for o in ops)
    return Epilogue(producer, tuple(o[0] for o in ops), tuple(o[1] for o in ops), tuple(o[2] for o in ops), kinds)


class EpilogueFacts(HostFlowFacts):
    # -- GEMM results and what follows them -----------------------------------
    def matmul_call(self, node: cst.CSTNode) -> str | None:
        """How a torch matmul is spelled (`torch.matmul`, `F.linear`, `.mm`,
        `@`), or None when `node` is not one."""
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
            return "@"
        if not isinstance(node, cst.Call):
            return None
        name = self.qualname(node.func) or ""
        if name in MATMUL_FUNCTIONS:
            return self.code(node.func)
        if call_name(node) in MATMUL_METHODS and not name.startswith(("torch.", "numpy.", "np.")) and node.args:
            return f".{call_name(node)}"
        return None

    def gemm_producer(self, call: cst.Call, function: FunctionInfo) -> tuple[str, str] | None:
        """A call whose result is a GEMM's or a convolution's output, as
        (spelling, kind): kind "gemm" for a torch matmul (`torch.matmul`,
        `F.linear`, `torch.addmm`, ...) or a module built from `nn.Linear`,
        "conv" for `F.conv*d`/`F.conv_transpose*d` or a module built from
        `nn.Conv*d`/`nn.ConvTranspose*d` (`self.conv = nn.Conv2d(...)` in
        `__init__`, called as `self.conv(x)` in forward)."""
        spelled = self.matmul_call(call)
        if spelled is not None:
            return f"`{spelled}`", "gemm"
        name = self.qualname(call.func) or ""
        if name in CONV_FUNCTIONS:
            return f"`{self.code(call.func)}`", "conv"
        module = self._self_module(call, function)
        if module in LINEAR_MODULES:
            return f"`{self.code(call.func)}` (nn.{module.rsplit('.', 1)[-1]})", "gemm"
        if module in CONV_MODULES:
            return f"`{self.code(call.func)}` (nn.{module.rsplit('.', 1)[-1]})", "conv"
        return None

    def collapsible_reduction(self, producer: cst.CSTNode, function: FunctionInfo) -> Epilogue | None:
        """The epilogue of a GEMM with a weight (an `nn.Linear` module,
        `F.linear`, a matmul by a `self.` parameter) when it is linear in the
        product up to a sum or mean over a dimension (`y / 2`, `+ bias`, then
        `torch.sum(y, dim=1)`): the reduction commutes with the GEMM, so the
        whole product collapses to a GEMV with the weight summed once (KL026).
        The ops in between must scale or shift by a literal or a module
        attribute; a nonlinearity, or another tensor, keeps the product."""
        if self._weight_gemm(producer, function):
            return self.collapsible_tail(producer, function)
        # A convolution module is a GEMM with its weight too: a sum or mean of its output (over its positions,
        # its channels or its batch) commutes with it; an average pool over disjoint windows of its positions
        # folds into it, a convolution with a wider, strided kernel (a transposed one's does not: KL026 leaves
        # it).
        module = self._self_module(producer, function) if isinstance(producer, cst.Call) else None
        if module in CONV_MODULES:
            dims = module[-2]
            pools = () if "Transpose" in module else (f"torch.nn.AvgPool{dims}d",)
            return self.collapsible_tail(producer, function, pools=pools)
        return None

    def collapsible_tail(
        self,
        producer: cst.CSTNode,
        function: FunctionInfo,
        name: str | None = None,
        pools: tuple[str, ...] = ("torch.nn.AvgPool1d",),
    ) -> Epilogue | None:
        """The ops after `producer` (or after it wrote the tensor `name`) up
        to a sum, a mean or a disjoint-window average (an average pool module
        of `pools`), when every op before it only scales or shifts by a literal
        or a module attribute: a reduction that commutes with a GEMM (or a
        convolution) `producer` computes."""
        tail = self.epilogue(producer, function, name=name, chain=True)
        for op, kind, node in zip(tail.ops, tail.kinds, tail.nodes):
            if kind == "reduction":
                summed = op.strip(".()").rsplit(".", 1)[-1].strip("()") in ("sum", "mean")
                if not summed and not (isinstance(node, cst.Call) and self._window_average(node, function, pools)):
                    return None
                if self._passed_on_before(producer, node, tail, function):
                    return None
                if self._product_read_elsewhere(producer, node, tail, function, name):
                    return None
                return Epilogue(
                    tail.producer,
                    tail.ops[: tail.nodes.index(node) + 1],
                    tail.casts[: tail.nodes.index(node) + 1],
                    tail.nodes[: tail.nodes.index(node) + 1],
                    tail.kinds[: tail.nodes.index(node) + 1],
                )
            if kind == "cast":
                continue
            if not self._affine_step(node):
                return None
        return None

    def _window_average(self, call: cst.Call, function: FunctionInfo, pools: tuple[str, ...]) -> bool:
        """`self.pool(y)` where `self.pool = nn.AvgPool1d(k)` (a module of
        `pools`) with no stride other than k and no padding: the mean of
        disjoint windows of y's last dimension (a GEMM's output features) or
        of a convolution's positions, linear in y (KL026)."""
        cls = self.class_of(function)
        if cls is None or self._self_module(call, function) not in pools:
            return False
        assert isinstance(call.func, cst.Attribute)
        built = self._module_constructors(cls)[call.func.attr.value]
        leading = positional(built)

        def argument(position: int, name: str) -> cst.BaseExpression | None:
            value = keyword(built, name)
            return value if value is not None or position >= len(leading) else leading[position]

        kernel, stride, padding = argument(0, "kernel_size"), argument(1, "stride"), argument(2, "padding")
        ceil_mode = argument(3, "ceil_mode")
        if kernel is None or (isinstance(ceil_mode, cst.Name) and ceil_mode.value == "True"):
            return False  # ceil_mode: a last, partial window that no wider kernel computes
        same_stride = (
            stride is None
            or (isinstance(stride, cst.Name) and stride.value == "None")
            or self.code(stride) == self.code(kernel)
        )
        return same_stride and (padding is None or literal_value(padding) == 0)

    def _passed_on_before(
        self, producer: cst.CSTNode, reduction: cst.CSTNode, tail: Epilogue, function: FunctionInfo
    ) -> bool:
        """A name holding the product is handed to another call between the
        GEMM and the reduction (`cross_entropy_fwd(logits=c_logits)`): that
        call may overwrite it in place (a kernel writing gradients into the
        logits), so the reduced value is not known to be the product."""
        names = self._bound_by((producer, *tail.nodes), function)
        if not names or function.node is None:
            return False
        first, last = self.line_of(producer), self.line_of(reduction)
        own = {id(n) for n in (producer, *tail.nodes)}
        for node in _walk_no_scopes(function.node.body):
            if not isinstance(node, cst.Call) or id(node) in own or not first <= self.line_of(node) < last:
                continue
            if any(isinstance(a.value, cst.Name) and a.value.value in names for a in node.args):
                return True
        return False

    def _bound_by(
        self, nodes: Sequence[cst.CSTNode], function: FunctionInfo, besides: cst.CSTNode | None = None
    ) -> dict[str, int]:
        """The names the statements of `nodes` assign (`y = ...`), each with its statement's line; none of the
        statement that holds `besides`."""
        index = self._flow(function)
        skip = self._statement_of(besides, index) if besides is not None else None
        names: dict[str, int] = {}
        for node in nodes:
            statement = self._statement_of(node, index)
            if isinstance(statement, cst.SimpleStatementLine) and statement is not skip:
                for small in statement.body:
                    if isinstance(small, cst.Assign):
                        for target in small.targets:
                            if isinstance(target.target, cst.Name):
                                names[target.target.value] = self.line_of(small)
        return names

    def _product_read_elsewhere(
        self, producer: cst.CSTNode, reduction: cst.CSTNode, tail: Epilogue, function: FunctionInfo, name: str | None
    ) -> bool:
        """A name holding the product (the buffer a launch wrote, or one bound before the reduction) is read
        by anything but the chain (`mean = y.mean(0)` and `var = y.var(0)`, then a kernel reading y): the
        product is needed whole, not only reduced. A read counts when the name's last binding before it is
        the product's: a name rebound to the reduced value (`x = x.sum(1)`) is that value afterwards."""
        if function.node is None:
            return False
        chain = [producer, *tail.nodes[: tail.nodes.index(reduction)]]
        # name -> the line of the binding that holds the product (what the reduction's statement binds holds
        # the reduced value)
        holders = self._bound_by(chain, function, besides=reduction)
        if name is not None:
            holders.setdefault(name, self.line_of(producer))
        if not holders:
            return False
        own = {id(n) for node in (*chain, reduction) for n in walk(node)}
        bound: dict[str, list[int]] = {}
        reads: list[tuple[str, int]] = []
        stores: set[int] = set()  # the Name nodes that are assignment targets, not reads
        for node in _walk_no_scopes(function.node.body):
            if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                targets: list[cst.BaseExpression] = (
                    [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
                )
                for stored in targets:
                    if isinstance(stored, cst.Name):
                        if not isinstance(node, cst.AugAssign):
                            stores.add(id(stored))  # `x += b` reads x too
                        if stored.value in holders:
                            bound.setdefault(stored.value, []).append(self.line_of(node))
            elif (
                isinstance(node, cst.Name) and node.value in holders and id(node) not in own and id(node) not in stores
            ):
                reads.append((node.value, self.line_of(node)))
        first = self.line_of(producer)
        for held, line in reads:
            if line <= first:
                continue
            latest = max((b for b in bound.get(held, ()) if b < line), default=None)
            if latest is None or latest <= holders[held]:
                return True
        return False

    def _weight_gemm(self, producer: cst.CSTNode, function: FunctionInfo) -> bool:
        if isinstance(producer, cst.Call):
            if self._self_module(producer, function) in LINEAR_MODULES:
                return True
            if (self.qualname(producer.func) or "") == "torch.nn.functional.linear":
                return True
        operands: tuple[cst.BaseExpression, ...] = ()
        if isinstance(producer, cst.BinaryOperation) and isinstance(producer.operator, cst.MatrixMultiply):
            operands = (producer.right,)
        elif isinstance(producer, cst.Call) and (self.qualname(producer.func) or "") in ("torch.matmul", "torch.mm"):
            operands = tuple(a.value for a in producer.args[1:2])
        return any(self_attribute_root(o) for o in operands)

    def _affine_step(self, node: cst.CSTNode) -> bool:
        """`y * c`, `c * y`, `y / c`, `y + c`, `y - c` with `c` a literal or a module attribute: linear in y."""
        if isinstance(node, cst.AugAssign):
            return isinstance(
                node.operator, (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign)
            ) and _constant_like(node.value)
        if isinstance(node, cst.UnaryOperation):
            return isinstance(node.operator, cst.Minus)
        if not isinstance(node, cst.BinaryOperation):
            return False
        if not isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)):
            return False
        if isinstance(node.operator, cst.Divide):
            return _constant_like(node.right)
        return _constant_like(node.left) or _constant_like(node.right)

    def is_pool(self, node: cst.CSTNode, function: FunctionInfo) -> bool:
        """`node` calls a pooling layer of the model (`self.pool(y)`, `self.pool = nn.MaxPool2d(2)`) or a
        pooling function (`F.avg_pool2d(y, 2)`)."""
        if not isinstance(node, cst.Call):
            return False
        return (
            self._self_module(node, function) in CHAIN_POOL_MODULES or self.qualname(node.func) in CHAIN_POOL_FUNCTIONS
        )

    def called_module(self, call: cst.Call, function: FunctionInfo) -> str | None:
        """The qualified class of the nn module `call` calls (`self.gru(x)`
        where `self.gru = nn.GRU(...)` in `__init__`: "torch.nn.GRU"), or None."""
        return self._self_module(call, function)

    def conv_bias_reader(self, call: cst.Call, function: FunctionInfo) -> tuple[cst.Call, str] | None:
        """For a convolution with a bias (PyTorch adds it in a pass of its own over the output,
        after cuDNN's kernel) whose output the next use hands to a Triton kernel, launched here or
        by a helper (`x = self.conv(x); x = triton_mish(x)`): that launch or helper call, and the
        kernel spelled for a message. The kernel can add the bias to the values it loads."""
        if not self._conv_has_bias(call, function):
            return None

        def reads_it(node: cst.Call) -> bool:
            return any(self._holds_output(function, a.value, node, call) for a in node.args)

        # Its own launches, and those of helpers launching into the tensors it hands them (FileModel.launches_in).
        for launch in self.launches_in(function):
            if launch.helper_launch is None:
                if reads_it(launch.node):
                    return launch.node, f"`{launch.kernel.name}`"
            elif any(self._holds_output(function, value, launch.node, call) for value in launch.arguments.values()):
                return launch.node, f"`{launch.kernel.name}` (launched by `{launch.helper_launch.caller.name}`)"
        wrappers = self.kernel_wrappers()
        for other in function.calls:
            if isinstance(other.func, cst.Name) and other.func.value in wrappers:
                helper: str | None = other.func.value
            else:
                helper = self.kernel_wrapper_method(other, function)
            if helper is not None and reads_it(other):
                return other, f"`{helper}` (launches a Triton kernel)"
        return None

    def product_output_launches(self, call: cst.CSTNode, function: FunctionInfo) -> list[tuple[Launch, str]]:
        """The Triton launches in `function` handed the output of `call`, a convolution (`conv_call_kind`) or
        a GEMM by a module weight (`nn.Linear`, `F.linear`, `x @ self.w`), bound to a name, made contiguous or
        not; each with the kernel parameter that receives it (KL026)."""
        if not (isinstance(call, cst.Call) and self.conv_call_kind(call, function)) and not self._weight_gemm(
            call, function
        ):
            return []

        found = []
        for launch in self.launches_in(function):
            for param, argument in launch.arguments.items():
                if self._holds_output(function, argument, launch.node, call):
                    found.append((launch, param))
        return found

    def _holds_output(
        self, function: FunctionInfo, value: cst.BaseExpression, before: cst.CSTNode, call: cst.CSTNode, depth: int = 0
    ) -> bool:
        """`value`, an argument at `before`, is the output of `call`: the call itself, a name assigned it, or
        either made contiguous (a no-op on it), in one statement or another (`x = self.conv(x)`, then
        `x = x.contiguous()`)."""
        value = uncopied(value)
        if value is call:
            return True
        if not isinstance(value, cst.Name) or depth > 4:
            return False
        held = self.assigned_value(function, value.value, before=before, strict=True)
        return held is not None and self._holds_output(function, held, value, call, depth + 1)

    def conv_call_kind(self, call: cst.Call, function: FunctionInfo) -> str | None:
        """ "Conv2d", "ConvTranspose3d", ... for a call of a convolution module built in `__init__`, or of
        `F.conv2d`/`F.conv_transpose2d` with a module parameter for its weight; None otherwise."""
        module = self._self_module(call, function)
        if module in CONV_MODULES:
            return module.rsplit(".", 1)[-1].removeprefix("Lazy")
        name = self.qualname(call.func) or ""
        args = positional(call)
        weight = keyword(call, "weight") or (args[1] if len(args) > 1 else None)
        if name in CONV_FUNCTIONS and weight is not None and self_attribute_root(weight):
            dims = name[-2]
            return f"ConvTranspose{dims}d" if "transpose" in name else f"Conv{dims}d"
        return None

    def conv_bias_before(self, node: cst.CSTNode, function: FunctionInfo) -> str | None:
        """The convolution, spelled, whose bias the Triton launch or helper call `node` could add
        (`conv_bias_reader`), or None."""
        for call in function.calls:
            producer = self.gemm_producer(call, function)
            if producer is not None and producer[1] == "conv":
                found = self.conv_bias_reader(call, function)
                if found is not None and found[0] is node:
                    return producer[0]
        return None

    def conv_functional(self, call: cst.Call, function: FunctionInfo) -> str | None:
        """How a convolution call is written as a function (`F.conv3d` for a module built as
        nn.Conv3d, `F.conv_transpose2d` for F.conv_transpose2d itself), or None if it is not one."""
        name = self.qualname(call.func) or ""
        if name not in CONV_FUNCTIONS:
            module = self._self_module(call, function)
            if module not in CONV_MODULES:
                return None
            kind = module.rsplit(".", 1)[-1].removeprefix("Lazy")  # "Conv3d", "ConvTranspose2d"
            name = "conv_transpose" + kind[-2:] if kind.startswith("ConvTranspose") else "conv" + kind[-2:]
        return "F." + name.rsplit(".", 1)[-1]

    def _conv_has_bias(self, call: cst.Call, function: FunctionInfo) -> bool:
        """A convolution call that adds a bias: `F.conv2d(x, w, b)` with a bias that is not None nor
        the function's argument, or a conv module built without `bias=False` (nn.Conv*d and
        nn.ConvTranspose*d take it 8th)."""
        if (self.qualname(call.func) or "") in CONV_FUNCTIONS:
            args = positional(call)
            bias = keyword(call, "bias") or (args[2] if len(args) > 2 else None)
            # A bias the caller passes (an argument, often None by default) may be None at run time.
            return bias is not None and not (isinstance(bias, cst.Name) and bias.value in {"None", *function.params})
        if self._self_module(call, function) not in CONV_MODULES:
            return False
        cls = self.class_of(function)
        assert cls is not None and isinstance(call.func, cst.Attribute)
        built = self._module_constructors(cls)[call.func.attr.value]
        args = positional(built)
        bias = keyword(built, "bias") or (args[7] if len(args) > 7 else None)
        return not (isinstance(bias, cst.Name) and bias.value == "False")

    def _self_module(self, call: cst.Call, function: FunctionInfo) -> str | None:
        """The class of the nn module `call` calls (`self.fc(x)` where
        `self.fc = nn.Linear(...)` in `__init__`), or None."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"):
            return None
        cls = self.class_of(function)
        return self._module_attributes(cls).get(func.attr.value) if cls is not None else None

    def launch_output(self, launch: Launch) -> str | None:
        """The name of the tensor a launch writes: an argument allocated in
        the launching function (`out = torch.empty(...)`) before the launch."""
        function = launch.caller
        # A helper's launch names only the caller's own values (FileModel.launches_in).
        handed = [a.value for a in launch.node.args] if launch.helper_launch is None else launch.arguments.values()
        for value in handed:
            if not isinstance(value, cst.Name):
                continue
            assigned = self.assigned_value(function, value.value, before=launch.node, strict=True)
            # `out = out.contiguous()` after the allocation: the same buffer (a no-op on it).
            for _ in range(4):
                inner = uncopied(assigned) if assigned is not None else None
                if not (isinstance(inner, cst.Name) and inner is not assigned and inner.value == value.value):
                    break
                assigned = self.assigned_value(function, value.value, before=assigned, strict=True)
            if isinstance(assigned, cst.Call) and (self.qualname(assigned.func) or "") in (
                "torch.empty",
                "torch.empty_like",
                "torch.zeros",
                "torch.zeros_like",
                "torch.empty_strided",
            ):
                return value.value
        return None

    def gemm_wrappers(self) -> frozenset[str]:
        """Functions of this file that launch a kernel containing `tl.dot`
        and return the tensor it wrote."""
        return self._gemm_wrappers

    def kernel_wrappers(self) -> frozenset[str]:
        """Functions of this file that launch a kernel without `tl.dot`
        (elementwise, a norm, a reduction) and return the tensor it wrote."""
        return self._kernel_wrappers

    @cached_property
    def _gemm_wrappers(self) -> frozenset[str]:
        return self._wrappers(dot=True)

    @cached_property
    def _kernel_wrappers(self) -> frozenset[str]:
        return self._wrappers(dot=False)

    def kernel_wrapper_method(self, call: cst.Call, function: FunctionInfo) -> str | None:
        """`self.m(...)` where `m`, a method of `function`'s class, launches a
        kernel without `tl.dot` and returns the tensor it wrote: `m`'s qualname."""
        owner = self.class_of(function)
        if owner is None or not isinstance(call.func, cst.Attribute):
            return None
        callee = self.resolve_callee(call, owner)
        return callee.qualname if callee is not None and callee.qualname in self._kernel_wrapper_methods else None

    @cached_property
    def _kernel_wrapper_methods(self) -> frozenset[str]:
        return self._wrappers(dot=False, methods=True)

    def _wrappers(self, dot: bool, methods: bool = False) -> frozenset[str]:
        names = set()
        for launch in self.launches:
            function = launch.caller
            if function.is_module_level or (function.class_name is not None) != methods:
                continue
            if function.node is None or bool(self.kernel_uses(launch.kernel, "dot")) != dot:
                continue
            returned = self._handed_back(function)
            # Only an argument the function returns can be the output it hands back; finding which
            # argument the launch writes (launch_output) needs the function's source order.
            if not any(isinstance(a.value, cst.Name) and a.value.value in returned for a in launch.node.args):
                continue
            if self.launch_output(launch) in returned:
                names.add(function.qualname if methods else function.name)
        return frozenset(names)

    def _handed_back(self, function: FunctionInfo) -> frozenset[str]:
        """The tensors `function` returns, as themselves or through a view
        (`return out.view(shape)`); its nested functions' returns excluded."""
        found = self._handed_back_by.get(id(function))
        if found is None and function.node is not None:
            returned = {_returned_name(n.value) for n in function.returns if n.value is not None}
            found = self._handed_back_by[id(function)] = frozenset(n for n in returned if n is not None)
        return found or frozenset()

    @cached_property
    def _handed_back_by(self) -> dict[int, frozenset[str]]:
        return {}

    def epilogue(
        self, producer: cst.CSTNode, function: FunctionInfo, name: str | None = None, chain: bool = False
    ) -> Epilogue:
        """The elementwise ops that consume `producer`'s value (or, when
        `name` is given, the tensor `name` after `producer`), through views
        and assignments, until it is returned, stored or passed on. With
        `chain` (KL023's GEMM-free chains) also through row normalizations,
        scans, reversals, gathers and losses (`CHAIN_*`)."""
        index = self._flow(function)
        ops: list[_Op] = []
        tracked: set[str] = set()
        if name is not None:
            tracked.add(name)
            statement = self._statement_of(producer, index)
        else:
            top = self._climb(producer, function, index, ops, chain)
            statement = index.parents.get(id(top))
            target = _assigned_name(statement, top)
            if target is None:
                return _epilogue(producer, ops)
            tracked.add(target)
            statement = self._statement_of(top, index)
        # Straight-line statements after the producer's, in the same block.
        for following in self._following(statement, index):
            if not tracked:
                break
            continued: set[str] = set()
            for node in _walk_no_scopes(following):
                if isinstance(node, cst.Name) and node.value in tracked and self._reads(node, index):
                    top = self._climb(node, function, index, ops, chain)
                    parent = index.parents.get(id(top))
                    if (
                        isinstance(parent, cst.AugAssign)
                        and isinstance(parent.operator, AUG_ARITHMETIC)
                        and parent.target is top
                    ):
                        ops.append(
                            (
                                f"{self.code(parent.operator).strip()} {_short(self.code(parent.value))}",
                                False,
                                parent,
                                "elementwise",
                            )
                        )
                        continue
                    target = _assigned_name(parent, top)
                    if target is not None:
                        tracked.add(target)
                        continued.add(target)
            # A tracked name bound to anything but the chain's own value
            # (`y = F.layer_norm(y)`, `y = other`) no longer holds the GEMM's output.
            for target in _rebound(following):
                if target not in continued:
                    tracked.discard(target)
        return _epilogue(producer, ops)

    def _climb(
        self, node: cst.CSTNode, function: FunctionInfo, index: _Index, ops: list[_Op], chain: bool = False
    ) -> cst.CSTNode:
        """Walk up from a value through elementwise ops and views; record the
        ops; return the outermost expression that still is the value."""
        current = node
        while True:
            parent = index.parents.get(id(current))
            if isinstance(parent, cst.Arg) and parent.value is current:
                # An argument: the call it belongs to decides.
                parent = index.parents.get(id(parent))
            if parent is None:
                return current
            op = self._consumes(parent, current, function, chain)
            if op is None:
                return current
            if op[0] and not any(recorded[2] is parent for recorded in ops):
                # `x * torch.sigmoid(x)`: both reads of x meet at one op.
                kind = op[2] if len(op) > 2 else "elementwise"
                if isinstance(kind, tuple):  # a composite call: each of its kernels
                    ops.extend((f"{op[0]} ({part})", op[1], parent, part_kind) for part, part_kind in kind)
                else:
                    ops.append((op[0], op[1], parent, kind))
            current = parent

    def _consumes(
        self, parent: cst.CSTNode, child: cst.CSTNode, function: FunctionInfo, chain: bool = False
    ) -> tuple | None:
        """How `parent` uses `child`'s value: ("op", is_cast) for an
        elementwise op, ("op", False, kind) for a normalization ("norm") or
        a reduction ("reduction"), ("", False) for a free view, None when
        the value leaves the chain."""
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, ARITHMETIC):
            other = parent.right if parent.left is child else parent.left
            symbol = self.code(parent.operator).strip()
            return f"{symbol} {_short(self.code(other))}", False
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Minus):
            return "-", False
        if isinstance(parent, cst.Attribute) and parent.value is child:
            # A method call on the value: decided at the Call above it.
            return (
                ("", False)
                if parent.attr.value in FREE_ATTRIBUTES
                else ("", False)
                if parent.attr.value
                in (
                    FREE_METHODS | ELEMENTWISE_METHODS | REDUCTION_METHODS | CAST_METHODS | {"to", "type", "min", "max"}
                )
                or chain
                and parent.attr.value in CHAIN_NORM_METHODS | CHAIN_REDUCTION_METHODS
                else None
            )
        if isinstance(parent, cst.Call) and isinstance(parent.func, cst.Attribute) and parent.func is child:
            method = parent.func.attr.value
            if method in FREE_METHODS:
                return "", False
            if method in ELEMENTWISE_METHODS:
                return f".{method}()", False
            if method in REDUCTION_METHODS or method in ("min", "max"):
                return f".{method}()", False, "reduction"
            if method in CAST_METHODS:
                return f".{method}()", True
            if chain and method in CHAIN_NORM_METHODS:
                return f".{method}()", False, "norm"
            if chain and method in CHAIN_REDUCTION_METHODS:
                return f".{method}()", False, "reduction"
            if method in ("to", "type"):
                if any(self._is_dtype_literal(a.value) for a in parent.args):
                    return f".{method}({_short(self.code(parent.args[0].value))})", True
                return "", False
            return None
        if isinstance(parent, cst.Call):
            name = self.qualname(parent.func) or ""
            if name in ("torch.min", "torch.max") and parent.args and parent.args[0].value is child:
                # torch.min(x, other) is elementwise; torch.min(x, dim) (or of the whole tensor) reduces.
                second = parent.args[1] if len(parent.args) > 1 else None
                if second is not None and second.keyword is None and not _integer_literal(second.value):
                    return self.code(parent.func), False
                return self.code(parent.func), False, "reduction"
            if name in ELEMENTWISE_FUNCTIONS or self._activation_module(parent, function):
                return self.code(parent.func), False
            if name in NORM_FUNCTIONS or self._self_module(parent, function) in NORM_MODULES:
                return self.code(parent.func), False, "norm"
            if name in REDUCTION_FUNCTIONS:
                return self.code(parent.func), False, "reduction"
            if name in FREE_FUNCTIONS:
                return "", False
            if chain and (
                name in CHAIN_ELEMENTWISE_FUNCTIONS or self._self_module(parent, function) in CHAIN_ELEMENTWISE_MODULES
            ):
                return self.code(parent.func), False
            if chain and (name in CHAIN_NORM_FUNCTIONS or self._self_module(parent, function) in CHAIN_NORM_MODULES):
                return self.code(parent.func), False, "norm"
            composite = CHAIN_COMPOSITE_FUNCTIONS.get(name) or CHAIN_COMPOSITE_MODULES.get(
                self._self_module(parent, function) or ""
            )
            if chain and composite:
                # Only its input goes through the kernels (a target's indices are read, not normalized).
                if not parent.args or parent.args[0].value is not child:
                    return None
                reduction = keyword(parent, "reduction")
                if reduction is not None and literal_value(reduction) == "none":
                    return None  # reduction="none": the pointwise loss alone, one kernel
                return self.code(parent.func), False, composite
            if chain and (
                name in CHAIN_REDUCTION_FUNCTIONS or self._self_module(parent, function) in CHAIN_POOL_MODULES
            ):
                return self.code(parent.func), False, "reduction"
            return None
        if isinstance(parent, cst.Subscript) and parent.value is child:
            return "", False
        if isinstance(parent, (cst.SubscriptElement, cst.Index, cst.Slice)):
            return None
        return None

    def _activation_module(self, call: cst.Call, function: FunctionInfo) -> bool:
        """`self.act(y)` where `self.act = nn.GELU()` in `__init__`."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"):
            return False
        cls = self.class_of(function)
        return cls is not None and self._module_attributes(cls).get(func.attr.value) in ACTIVATION_MODULES

    def gemm_free_chains(self, function: FunctionInfo) -> list[Epilogue]:
        """Chains of elementwise/normalization/reduction ops (KL023) that
        start at one of `function`'s parameters, read before any rebinding
        (so no GEMM or convolution produced the value: that tail is KL004's),
        followed through the same names and views as a GEMM's epilogue.
        Each chain once: a chain contained in a longer one is dropped."""
        found = self._free_chain_cache.get(id(function))
        if found is not None:
            return found
        chains: list[Epilogue] = []
        params = set(function.params) - {"self", "cls"}
        if function.node is not None and params:
            for node in _walk_no_scopes(function.node.body):
                if not (isinstance(node, cst.Name) and node.value in params):
                    continue
                if self.assigned_value(function, node.value, before=node, strict=True) is not None:
                    continue  # rebound before this read: not the parameter any more
                index = self._flow(function)
                if not self._reads(node, index):
                    continue
                chain = self.epilogue(node, function, chain=True)
                # Plain arithmetic alone may be on Python numbers: a tensor
                # chain shows itself by at least one torch call or method.
                if (
                    sum(kind != "cast" for kind in chain.kinds) >= 2
                    and any(isinstance(n, cst.Call) for n in chain.nodes)
                    and not self._read_on_host(chain, index)
                ):
                    chains.append(chain)
        kept = _merged([c for c in chains if not self._mixes_in_other_work(c, function)])
        kept.sort(key=lambda c: self.line_of(c.nodes[0]))
        self._free_chain_cache[id(function)] = kept
        return kept

    @cached_property
    def _free_chain_cache(self) -> dict[int, list[Epilogue]]:
        return {}

    @staticmethod
    def _read_on_host(chain: Epilogue, index: _Index) -> bool:
        """The chain ends in `.item()`/`.tolist()`/`.cpu()`/`.numpy()`: a
        host sync (KL006's finding, whose fix keeps the value on the device
        and drops the ops that fed it)."""
        parent = index.parents.get(id(chain.nodes[-1]))
        return isinstance(parent, cst.Attribute) and parent.attr.value in ("item", "tolist", "cpu", "numpy")

    def _mixes_in_other_work(self, chain: Epilogue, function: FunctionInfo) -> bool:
        """An op of the chain takes a GEMM's, a convolution's or an unknown
        module's or method's result (`x + self.attn(self.ln_1(x))`): the
        chain is a residual around other work, not a GEMM-free chain."""
        return any(self._holds_other_work(op, function) for op in chain.nodes)

    def _holds_other_work(self, expression: cst.CSTNode, function: FunctionInfo, depth: int = 0) -> bool:
        """`expression` computes, or reads a local name bound to, a GEMM, a
        convolution or a call of a module or method this table does not know."""
        known = (
            ACTIVATION_MODULES
            | NORM_MODULES
            | CHAIN_NORM_MODULES
            | CHAIN_ELEMENTWISE_MODULES
            | CHAIN_POOL_MODULES
            | CHAIN_COMPOSITE_MODULES.keys()
        )
        for node in _walk_no_scopes(expression):
            if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
                return True
            if isinstance(node, cst.Name) and depth < 3:
                # A parameter rebound before this read (`x = self.conv(x)`) holds what it was bound to.
                value = self.assigned_value(function, node.value, before=node, strict=True)
                if value is not None and self._holds_other_work(value, function, depth + 1):
                    return True
            if not isinstance(node, cst.Call):
                continue
            if self.gemm_producer(node, function) is not None:
                return True
            func = node.func
            if isinstance(func, cst.Name) and func.value in self.gemm_wrappers():
                return True
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
                if self._self_module(node, function) not in known:
                    return True
        return False

    def module_attribute_kind(self, cls: ClassInfo, attribute: str) -> str | None:
        """The qualified name of the nn module `self.<attribute>` was built
        from in `__init__` (`torch.nn.GRUCell`), or None."""
        return self._module_attributes(cls).get(attribute)

    def _module_attributes(self, cls: ClassInfo) -> dict[str, str]:
        """The class of each module attribute `cls.__init__` builds (`_module_constructors`)."""
        found = self._module_attr_cache.get(id(cls))
        if found is None:
            found = {name: self.qualname(built.func) or "" for name, built in self._module_constructors(cls).items()}
            self._module_attr_cache[id(cls)] = found
        return found

    def _module_constructors(self, cls: ClassInfo) -> dict[str, cst.Call]:
        """`self.<name> = nn.X(...)` in `cls.__init__` (or a local base
        class's): the call that builds each module attribute."""
        found = self._module_call_cache.get(id(cls))
        if found is None:
            found = {}
            init = cls.methods.get("__init__")
            if init is not None and init.node is not None:
                for node in _walk_no_scopes(init.node.body):
                    if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call):
                        built = node.value
                        # `nn.GRU(...).half()`, `.to(device)`: the module is the inner call's.
                        while (
                            isinstance(built.func, cst.Attribute)
                            and built.func.attr.value in MODULE_MOVES
                            and isinstance(built.func.value, cst.Call)
                        ):
                            built = built.func.value
                        for target in node.targets:
                            t = target.target
                            if (
                                isinstance(t, cst.Attribute)
                                and isinstance(t.value, cst.Name)
                                and t.value.value == "self"
                            ):
                                found[t.attr.value] = built
            self._module_call_cache[id(cls)] = found
            for base in cls.bases:
                # Attributes a local base class built in its own __init__.
                parent = self.classes.get(base)
                if parent is not None and parent is not cls:
                    for attribute, built in self._module_constructors(parent).items():
                        found.setdefault(attribute, built)
        return found

    @cached_property
    def _module_attr_cache(self) -> dict[int, dict[str, str]]:
        return {}

    @cached_property
    def _module_call_cache(self) -> dict[int, dict[str, cst.Call]]:
        return {}

    def _is_dtype_literal(self, node: cst.BaseExpression) -> bool:
        return bool(TORCH_DTYPE.match(self.qualname(node) or ""))

    def _reads(self, name: cst.Name, index: _Index) -> bool:
        parent = index.parents.get(id(name))
        if isinstance(parent, cst.AssignTarget):
            return False
        if isinstance(parent, cst.Attribute) and parent.attr is name:
            return False
        if isinstance(parent, cst.Arg) and parent.keyword is name:
            return False
        return True

    @staticmethod
    def _statement_of(node: cst.CSTNode, index: _Index) -> cst.CSTNode | None:
        current: cst.CSTNode | None = node
        while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            current = index.parents.get(id(current))
        return current

    @staticmethod
    def _following(statement: cst.CSTNode | None, index: _Index) -> list[cst.CSTNode]:
        if statement is None:
            return []
        block = index.parents.get(id(statement))
        body = getattr(block, "body", None)
        if not isinstance(body, (list, tuple)):
            return []
        siblings = list(body)
        for position, sibling in enumerate(siblings):
            if sibling is statement:
                return siblings[position + 1 :]
        return []
