"""The cost model against the kernel library's own record: for every pair and
shape of kernels/kernlint/kernels/measurements/h100.json, kernlint's estimate
for the pair's `before`, linted as a KernelBench-style file at that shape,
beside the speedup the record measured (issue 25's calibration bar: 1.3x).

    python scripts/calibration_check.py             # the table, one row per pair, shape and mode
    python scripts/calibration_check.py --markdown  # one row per pair and shape, for docs/measurements.md
    python scripts/calibration_check.py --show PAIR SHAPE   # the KernelBench-style file that is linted

A pair's `before.py` holds its `ModelNew`; the sizes of a call come from its
problem's `reference.py` (or the shared int8_problem.py / fp16_problem.py it
imports): `get_inputs(shape=...)` and `get_init_inputs(shape=...)` over the
`SHAPES` table, through a `_dims(shape)` helper. The file linted here is the
before followed by those two functions at the record's shape, written the
way a KernelBench problem writes them: each `_dims(shape)` call replaced by
the literal sizes the SHAPES entry gives it, the other parameters bound to
their defaults, and the problem's module constants they read copied over.
The before's own get_inputs/get_init_inputs, if it has any, give way to them
(their lines blanked, so line numbers stay the before's). Everything is read
with `ast`: nothing here imports or runs a pair's code.

Where the model gives no estimate the row says why (the fix is inside a
kernel, the forward calls a helper from another module whose work this
file does not show, ...).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
from dataclasses import dataclass

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARY = os.path.join(REPO, "kernels", "kernlint", "kernels")
RECORD = os.path.join(LIBRARY, "measurements", "h100.json")
PACKAGE = "kernlint.kernels."
MODES = ("kernelbench", "eager", "graph")
WITHIN = 1.3
SIZING = ("get_inputs", "get_init_inputs")


class NotSized(Exception):
    """The problem's sizing functions are not in the form this script reads."""


@dataclass
class Problem:
    """What a pair's reference says about the sizes of one call."""

    shapes: dict
    functions: dict[str, ast.FunctionDef]  # get_inputs, get_init_inputs and the helpers they call
    constants: dict[str, ast.stmt]  # module-level assignments, by name
    where: str  # the module the sizing functions are written in


def _parse(path: str) -> ast.Module:
    with open(path, encoding="utf-8") as handle:
        return ast.parse(handle.read(), filename=path)


def _library_module(dotted: str) -> str | None:
    if not dotted.startswith(PACKAGE):
        return None
    path = os.path.join(LIBRARY, *dotted.removeprefix(PACKAGE).split(".")) + ".py"
    return path if os.path.exists(path) else None


def _read_module(path: str, into: Problem, seen: frozenset[str] = frozenset()) -> None:
    """The module's SHAPES, its functions (and those one level inside a
    function, as fp16_problem.kernelbench_functions writes them) and its
    constants, after those of the library modules it imports (its own
    names win)."""
    tree = _parse(path)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and (imported := _library_module(node.module)):
            if imported not in seen:
                _read_module(imported, into, seen | {path})
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name == "SHAPES":
                into.shapes = {**into.shapes, **ast.literal_eval(node.value)}
            into.constants[name] = node
        elif isinstance(node, ast.FunctionDef):
            for inner in [node, *(n for n in node.body if isinstance(n, ast.FunctionDef))]:
                if inner.name in SIZING or inner.name.lstrip("_") == "dims":
                    into.functions[inner.name] = inner
                    if inner.name in SIZING:
                        into.where = os.path.relpath(path, REPO)


def problem(pair: str) -> Problem:
    found = Problem({}, {}, {}, "")
    _read_module(os.path.join(LIBRARY, pair, "reference.py"), found)
    # The reference's own SHAPES are the pair's (kl009 and kl015 override the problem's).
    reference = _parse(os.path.join(LIBRARY, pair, "reference.py"))
    for node in reference.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SHAPES" for t in node.targets):
            found.shapes = ast.literal_eval(node.value)
    if not all(name in found.functions for name in SIZING):
        raise NotSized(f"{pair}: no get_inputs/get_init_inputs in its reference")
    return found


def _dims(helper: ast.FunctionDef, sizes: dict) -> tuple:
    """What `helper(shape)` returns for the SHAPES entry `sizes`: its last
    statement is `return shape["A"], shape["B"], ...`."""
    last = helper.body[-1]
    if not isinstance(last, ast.Return) or not isinstance(last.value, ast.Tuple):
        raise NotSized(f"{helper.name} does not end in a tuple of the shape's sizes")
    out = []
    for element in last.value.elts:
        if not (isinstance(element, ast.Subscript) and isinstance(element.slice, ast.Constant)):
            raise NotSized(f"{helper.name} returns something other than the shape's sizes")
        out.append(sizes[element.slice.value])
    return tuple(out)


class _AtShape(ast.NodeTransformer):
    def __init__(self, found: Problem, sizes: dict) -> None:
        self.found, self.sizes = found, sizes

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node = self.generic_visit(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            helper = self.found.functions.get(node.func.id)
            if helper is not None and node.func.id not in SIZING:
                return ast.Tuple([ast.Constant(v) for v in _dims(helper, self.sizes)], ast.Load())
        return node


def sizing_source(pair: str, shape: str) -> str:
    """get_inputs() and get_init_inputs() of the pair's problem at `shape`, as KernelBench writes them."""
    found = problem(pair)
    if shape not in found.shapes:
        raise NotSized(f"{pair}: no shape {shape!r} in its SHAPES")
    sizes = found.shapes[shape]
    functions = []
    for name in SIZING:
        function = _AtShape(found, sizes).visit(ast.parse(ast.unparse(found.functions[name])).body[0])
        params = function.args.args
        defaults = dict(
            zip([p.arg for p in params][len(params) - len(function.args.defaults) :], function.args.defaults)
        )
        used = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
        if "shape" in used:
            raise NotSized(f"{name} reads `shape` other than through its dims helper")
        bound = [
            ast.Assign([ast.Name(p.arg, ast.Store())], defaults[p.arg], lineno=0)
            for p in params
            if p.arg in used and p.arg in defaults
        ]
        body = function.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # the docstring
        function.args = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
        function.body = [*bound, *body]
        functions.append(ast.fix_missing_locations(function))
    # Module constants the two functions read (`SCALE`): the problem's own.
    read = {n.id for f in functions for n in ast.walk(f) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    assigned = {
        n.id for f in functions for n in ast.walk(f) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    constants = [found.constants[n] for n in sorted(read - assigned) if n in found.constants and n != "SHAPES"]
    dims = ", ".join(f"{k}={v}" for k, v in sizes.items())
    lines = [
        "",
        "",
        f"# KernelBench sizing: the record's shape {shape!r} ({dims}), from {found.where}'s",
        "# get_inputs/get_init_inputs (written by scripts/calibration_check.py).",
        *(ast.unparse(c) for c in constants),
        *(ast.unparse(f) + "\n" for f in functions),
    ]
    return "\n".join(lines)


def kernelbench_source(pair: str, shape: str) -> str:
    """The pair's before at the record's shape: its text, its own sizing
    functions blanked (line numbers kept), the problem's appended."""
    path = os.path.join(LIBRARY, pair, "before.py")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    lines = text.splitlines()
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name in SIZING:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            for i in range(first - 1, node.end_lineno):
                lines[i] = ""
    return "\n".join(lines) + "\n" + sizing_source(pair, shape)


def record() -> dict:
    with open(RECORD, encoding="utf-8") as handle:
        return json.load(handle)


def _measured_us(side: dict, mode: str) -> float | None:
    modes = side.get("modes") or {}
    return (modes.get(mode) or {}).get("median_us")


def _finding_estimate(findings, codes: list[str]) -> dict:
    """The for_this_file estimate of the pair's rule (one rule: the record's
    pairs that fix several rules at once have no one finding's estimate)."""
    if len(codes) != 1:
        return {"status": "unknown", "reason": f"the pair fixes {len(codes)} rules at once ({', '.join(codes)})"}
    estimates = [(f.expected_speedup or {}).get("for_this_file") for f in findings if f.code == codes[0]]
    if not estimates:
        # The rule is silent at this shape (a rule that fires only where the cost model says its fix pays,
        # KL021 and KL028): kernlint claims no gain, which is 1.0x in every mode.
        return {
            "status": "estimated",
            "silent": True,
            **{mode: 1.0 for mode in MODES},
            "before_us": {},
            "after_us": {},
            "reason": f"no {codes[0]} finding in the before: no gain claimed",
        }
    estimate = next((e for e in estimates if e and e.get("status") == "estimated"), estimates[0])
    return estimate or {"status": "unknown", "reason": f"{codes[0]} carries no estimate"}


def rows() -> list[dict]:
    from kernlint.engine import lint_source
    from kernlint.settings import Settings

    out = []
    for result in record()["results"]:
        pair, shape = result["pair"], result["shape"]
        measured = {mode: result["speedup"].get(mode) for mode in MODES}
        times = {side: {mode: _measured_us(result[side], mode) for mode in MODES} for side in ("before", "after")}
        try:
            source = kernelbench_source(pair, shape)
        except NotSized as why:
            estimate = {"status": "unknown", "reason": f"not sized: {why}"}
        else:
            path = os.path.relpath(os.path.join(LIBRARY, pair, "before.py"), REPO)
            # The pair's rules run even where they are opt-in (KL010, KL015: their fixes measure 1.0x).
            settings = Settings(extend_select=frozenset(result["rules"]))
            estimate = _finding_estimate(lint_source(path, source, settings).findings, list(result["rules"]))
        out.append(
            {
                "pair": pair,
                "shape": shape,
                "dims": result["dims"],
                "rules": list(result["rules"]),
                "measured": measured,
                "measured_us": times,
                "estimate": estimate,
            }
        )
    return out


def ratio(row: dict, mode: str) -> float | None:
    """Estimate over measurement (> 1: the model promises more), None where either is missing."""
    m, e = (
        row["measured"].get(mode),
        row["estimate"].get(mode) if row["estimate"].get("status") == "estimated" else None,
    )
    return e / m if m and e else None


def within(row: dict, mode: str) -> bool:
    r = ratio(row, mode)
    return r is not None and max(r, 1 / r) <= WITHIN


def why_not(row: dict, mode: str) -> str | None:
    """Why the row has no estimate in `mode` (None: it has one)."""
    est = row["estimate"]
    if est.get("status") != "estimated":
        return est.get("reason", "no estimate")
    if row["measured"].get(mode) is None:
        return "not measured in this mode"
    if est.get(mode) is None:
        return "no estimate in this mode"
    return None


def key(row: dict, mode: str) -> str:
    return f"{row['pair']}:{row['shape']}:{mode}"


def summary(table: list[dict]) -> dict[str, tuple[int, int, int]]:
    """Per mode: rows within WITHIN, rows estimated, rows measured."""
    out = {}
    for mode in MODES:
        measured = [r for r in table if r["measured"].get(mode) is not None]
        estimated = [r for r in measured if ratio(r, mode) is not None]
        out[mode] = (sum(within(r, mode) for r in estimated), len(estimated), len(measured))
    return out


def _x(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}×"


def _us(v: float | None) -> str:
    return "–" if v is None else f"{v:.1f}"


def markdown(table: list[dict]) -> None:
    print(
        "| pair | shape | rule | measured KernelBench / eager / graph | estimated KernelBench / eager / graph | within 1.3× |"
    )
    print("|---|---|---|---|---|---|")
    for row in table:
        est = row["estimate"]
        measured = " / ".join(_x(row["measured"][m]) for m in MODES)
        if est.get("status") == "estimated":
            estimated = " / ".join(_x(est.get(m)) for m in MODES)
            verdict = ", ".join(f"{m}: {'yes' if within(row, m) else 'no'}" for m in MODES if ratio(row, m) is not None)
        else:
            estimated, verdict = f"unknown: {est.get('reason')}", "–"
        print(
            f"| {row['pair']} | {row['shape']} ({row['dims']}) | {' '.join(row['rules'])} | {measured} | {estimated} | {verdict} |"
        )
    print()
    for mode, (close, estimated, measured) in summary(table).items():
        print(f"- {mode}: within {WITHIN}× on {close} of {measured} measured rows ({estimated} estimated)")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--show", nargs=2, metavar=("PAIR", "SHAPE"))
    args = parser.parse_args()
    if args.show:
        print(kernelbench_source(*args.show))
        return 0
    table = rows()
    if args.markdown:
        markdown(table)
        return 0
    print(
        "| pair | shape | mode | measured | estimated | estimate / measured | within 1.3x | before us measured / est. | after us measured / est. |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in table:
        for mode in MODES:
            m = row["measured"][mode]
            if m is None:
                continue
            reason = why_not(row, mode)
            if reason is not None:
                print(f"| {row['pair']} | {row['shape']} | {mode} | {m:.2f}x | unknown: {reason} | – | – |")
                continue
            r = ratio(row, mode)
            sides = " | ".join(
                f"{_us(row['measured_us'][side][mode])} / {_us(row['estimate'][side + '_us'].get(mode))}"
                for side in ("before", "after")
            )
            print(
                f"| {row['pair']} | {row['shape']} | {mode} | {m:.2f}x | {row['estimate'][mode]:.2f}x "
                f"| {r:.2f} | {'yes' if within(row, mode) else 'NO'} | {sides} |"
            )
    print()
    for mode, (close, estimated, measured) in summary(table).items():
        print(f"{mode}: within {WITHIN}x on {close} of {measured} measured rows ({estimated} estimated)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
