"""Triton code in unusual shapes: the model still finds the kernels and their
launches, binds the arguments it can, and linting never fails."""

from __future__ import annotations

import textwrap

import pytest
from kernlint.engine import lint_source
from kernlint.model import FileModel, build_model
from kernlint.source import parse


def model_of(source: str) -> FileModel:
    source = textwrap.dedent(source)
    return build_model("unusual.py", source, parse(source))


def kernels(model: FileModel) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """(name, params, constexprs) of each kernel, in source order."""
    return [(k.name, tuple(p.name for p in k.params), k.constexprs) for k in model.kernel_list]


def launches(model: FileModel) -> list[tuple[int, str, list[str], bool]]:
    """(line, kernel, bound parameters, has *args/**kwargs) of each launch."""
    return [
        (model.line_of(launch.node), launch.kernel.name, sorted(launch.arguments), launch.has_star_args)
        for launch in model.launches
    ]


def lint(source: str):
    result = lint_source("unusual.py", textwrap.dedent(source))
    assert not [f for f in result.findings if f.code in ("KL000", "KL999")], result.findings
    return [(f.code, f.span.line, f.span.column) for f in result.findings]


KERNEL_IN_CLASS = """
    import triton
    import triton.language as tl

    class Ops:
        @staticmethod
        @triton.jit
        def add_kernel(x_ptr, n, BLOCK: tl.constexpr):
            pid = tl.program_id(0)

        def run(self, x):
            self.add_kernel[(1,)](x, x.numel(), BLOCK=128)
            Ops.add_kernel[(1,)](x, x.numel(), BLOCK=128)
"""


def test_a_kernel_defined_in_a_class_and_launched_through_self_and_the_class() -> None:
    model = model_of(KERNEL_IN_CLASS)
    assert kernels(model) == [("add_kernel", ("x_ptr", "n", "BLOCK"), ("BLOCK",))]
    assert model.kernel_list[0].function.qualname == "Ops.add_kernel"
    assert launches(model) == [
        (12, "add_kernel", ["BLOCK", "n", "x_ptr"], False),
        (13, "add_kernel", ["BLOCK", "n", "x_ptr"], False),
    ]
    assert lint(KERNEL_IN_CLASS) == []


NESTED_KERNEL = """
    import triton
    import triton.language as tl

    def make():
        @triton.jit
        def inner_kernel(x_ptr, BLOCK: tl.constexpr):
            pass

        def launch(x):
            inner_kernel[(1,)](x, BLOCK=64)
        return launch
"""


def test_a_kernel_defined_in_a_nested_function() -> None:
    model = model_of(NESTED_KERNEL)
    assert kernels(model) == [("inner_kernel", ("x_ptr", "BLOCK"), ("BLOCK",))]
    assert model.kernel_list[0].function.qualname == "make.inner_kernel"
    assert launches(model) == [(11, "inner_kernel", ["BLOCK", "x_ptr"], False)]
    assert model.launches[0].caller.qualname == "make.launch"
    assert lint(NESTED_KERNEL) == []


CALL_FORM = """
    import triton
    import triton.language as tl

    def _body(x_ptr, BLOCK: tl.constexpr):
        pass

    body_kernel = triton.jit(_body)
    debug_kernel = triton.jit(debug=True)(_body)

    def go(x):
        body_kernel[(1,)](x, BLOCK=32)
        debug_kernel[(1,)](x, 32)
"""


def test_triton_jit_in_call_form_gives_one_kernel_under_both_names() -> None:
    model = model_of(CALL_FORM)
    assert sorted(model.kernels) == ["body_kernel", "debug_kernel"]
    assert model.kernels["body_kernel"] is model.kernels["debug_kernel"]
    assert kernels(model) == [("_body", ("x_ptr", "BLOCK"), ("BLOCK",))]
    assert launches(model) == [(12, "_body", ["BLOCK", "x_ptr"], False), (13, "_body", ["BLOCK", "x_ptr"], False)]
    assert lint(CALL_FORM) == []


STAR_IMPORT = """
    import triton
    from triton.language import *

    @triton.jit
    def star_kernel(a_ptr, b_ptr, BLOCK: constexpr):
        offs = arange(0, BLOCK)
        a = load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
        b = load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
        acc = dot(a, b, allow_tf32=True)
"""


def test_from_triton_language_import_star_resolves_names() -> None:
    model = model_of(STAR_IMPORT)
    assert kernels(model) == [("star_kernel", ("a_ptr", "b_ptr", "BLOCK"), ("BLOCK",))]
    # `dot` is triton.language.dot, so KL014 sees the deprecated flag.
    assert lint(STAR_IMPORT) == [("KL014", 10, 21)]


LAMBDA_GRID_AND_STAR_ARGS = """
    import triton
    import triton.language as tl

    @triton.jit
    def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        pass

    def go(x, y, n, *args, **kwargs):
        grid = lambda META: (triton.cdiv(n, META["BLOCK"]),)
        k[grid](*args, **kwargs)
        k[grid](x, *args, BLOCK=64)
        k[grid](x, y, **kwargs)
        k[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n, BLOCK=128)
"""


def test_lambda_grids_and_arguments_passed_by_star_args_and_kwargs() -> None:
    model = model_of(LAMBDA_GRID_AND_STAR_ARGS)
    assert launches(model) == [
        (11, "k", [], True),
        # Positions after *args are unknown: only x (before it) and the keyword bind.
        (12, "k", ["BLOCK", "x_ptr"], True),
        (13, "k", ["x_ptr", "y_ptr"], True),
        (14, "k", ["BLOCK", "n", "x_ptr", "y_ptr"], False),
    ]
    assert all(type(launch.grid).__name__ in ("Name", "Lambda") for launch in model.launches)
    assert lint(LAMBDA_GRID_AND_STAR_ARGS) == []


DECORATORS_WITH_ARGUMENTS = """
    import triton
    import triton.language as tl

    @triton.autotune(
        configs=[triton.Config({"BLOCK": 64}, num_warps=4), triton.Config({"BLOCK": 128}, num_warps=8)],
        key=["n"],
    )
    @triton.heuristics(values={"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
    @triton.jit(do_not_specialize=["n"], debug=False)
    def tuned(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
        pass

    def go(x):
        tuned[(1,)](x, x.numel())
"""


def test_decorators_with_arguments() -> None:
    model = model_of(DECORATORS_WITH_ARGUMENTS)
    assert kernels(model) == [("tuned", ("x_ptr", "n", "BLOCK", "EVEN"), ("BLOCK", "EVEN"))]
    kernel = model.kernel_list[0]
    assert kernel.autotune is not None and kernel.autotune.key == ("n",)
    assert kernel.autotune.configs == ({"BLOCK": 64, "num_warps": 4}, {"BLOCK": 128, "num_warps": 8})
    assert kernel.heuristics == ("EVEN",)
    assert launches(model) == [(15, "tuned", ["n", "x_ptr"], False)]
    assert lint(DECORATORS_WITH_ARGUMENTS) == []


REBOUND = """
    import triton
    import triton.language as tl

    @triton.jit
    def original(x_ptr, BLOCK: tl.constexpr):
        pass

    alias = original
    again = alias

    def go(x):
        alias[(1,)](x, BLOCK=16)
        again[(1,)](x, BLOCK=16)
"""


def test_kernels_re_bound_to_new_names() -> None:
    model = model_of(REBOUND)
    assert sorted(model.kernels) == ["again", "alias", "original"]
    assert kernels(model) == [("original", ("x_ptr", "BLOCK"), ("BLOCK",))]
    assert launches(model) == [(13, "original", ["BLOCK", "x_ptr"], False), (14, "original", ["BLOCK", "x_ptr"], False)]
    assert lint(REBOUND) == []


ALIASED_IMPORTS = """
    import triton as tr
    from triton import jit
    import triton.language as language

    @jit
    def a_kernel(x_ptr, B: language.constexpr):
        pass

    @tr.jit()
    def b_kernel(x_ptr, B: "tl.constexpr"):
        pass
"""


def test_aliased_imports_and_string_annotations() -> None:
    model = model_of(ALIASED_IMPORTS)
    assert kernels(model) == [("a_kernel", ("x_ptr", "B"), ("B",)), ("b_kernel", ("x_ptr", "B"), ("B",))]
    assert lint(ALIASED_IMPORTS) == []


@pytest.mark.parametrize(
    "source",
    [
        # A subscript call on something that is not a kernel.
        "table = {}\ntable[0](1)\n",
        # A launch of a name that is never defined.
        "missing_kernel[(1,)](x)\n",
        # A kernel with no parameters, launched with too many arguments.
        "import triton\n@triton.jit\ndef k():\n    pass\nk[(1,)](1, 2, 3)\n",
        # A kernel launched with a slice or two subscripts.
        "import triton\n@triton.jit\ndef k(x):\n    pass\nk[1:2](x)\nk[1, 2](x)\n",
        # jit applied to a lambda, to an attribute, to nothing.
        "import triton\nf = triton.jit(lambda x: x)\ng = triton.jit(obj.method)\nh = triton.jit()\n",
        # A kernel that shadows itself and a class that shares its name.
        "import triton\n@triton.jit\ndef k(x):\n    pass\nk = k\nclass k:\n    pass\nk[(1,)](1)\n",
        # Async and generator kernels, positional-only and star parameters.
        "import triton\n@triton.jit\nasync def k(x, /, *rest, y, **kw):\n    yield x\nk[(1,)](1, 2, y=3)\n",
    ],
    ids=["subscript-call", "undefined", "too-many-args", "slices", "jit-odd-targets", "shadowed", "odd-params"],
)
def test_odd_shapes_do_not_crash(source: str) -> None:
    model = model_of(source)
    assert isinstance(model.kernel_list, list)
    lint(source)
