"""Source order without code generation (model.positions.SourceOrder): the
value a name has at a point is the one assigned by a statement that ends
before it, so a statement reading the name it assigns sees the old value,
whether it spans one line or several."""

from __future__ import annotations

import libcst as cst
from kernlint.model import build_model
from kernlint.model.syntax import walk

SOURCE = """\
def f(x, w):
    y = x @ w
    y = y * 2
    y = (
        y
        + 1
    )
    z = y; y = 0
    return y
"""


def test_a_read_sees_the_value_of_the_last_statement_that_ended_before_it() -> None:
    model = build_model("f.py", SOURCE, cst.parse_module(SOURCE))
    function = model.function("f")
    assert function is not None and function.node is not None
    # In source order: targets and reads of `y` on lines 2, 3, 3, 4, 5, 8, 8, 9.
    ys = [n for n in walk(function.node) if isinstance(n, cst.Name) and n.value == "y"]
    assert len(ys) == 8

    def value_at(read: cst.Name) -> str | None:
        value = model.assigned_value(function, "y", before=read, strict=True)
        return model.code(value) if value is not None else None

    assert value_at(ys[2]) == "x @ w"  # `y = y * 2` reads the y of line 2
    assert value_at(ys[4]) == "y * 2"  # read on line 5, inside the statement of line 4 that assigns y
    seen_by_z = value_at(ys[5])  # `z = y` on line 8 reads the y of lines 4-7
    assert seen_by_z is not None and seen_by_z.split() == ["(", "y", "+", "1", ")"]
    assert value_at(ys[7]) == "0"  # `y = 0` ended before the return
