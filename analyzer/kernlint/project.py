"""Project-wide facts: a cheap pre-pass over every module of a linted tree.

kernlint's model is per file (one libcst parse, one FileModel). A launch of
a kernel imported from another module of the same tree (`from .kernels
import mm_kernel`; `mm_kernel[grid](...)`) needs a few facts about that
kernel: its constexpr parameters, whether it is autotuned, whether it uses
`tl.dot`. This module collects them for every module with Python's `ast`
(about ten times faster than libcst, and no positions are needed), before
any file is linted:

    index = ProjectIndex.build({path: source, ...}, root)
    index.summary("pkg.ops.kernels")          # ModuleSummary or None
    index.imported_kernel(path, "mm_kernel")  # KernelSummary or None
    index.dependency_digest(path)              # for a result cache key

How it fits the per-file model and the result cache:
- a file's FileModel receives the index as an optional argument (None when
  one file is linted alone); queries that need a foreign kernel ask the
  index by the name the file imports, so the per-file model stays the unit
  of work and rules keep asking the model;
- a file's result then depends on the modules it imports, so a result
  cache keyed on the file's own content must also key on
  `dependency_digest(path)`: the digest of the summaries (not the sources)
  of the modules the file imports from the tree. Editing a comment in an
  imported module leaves its summary, and so the cache entry, unchanged;
  adding `@triton.autotune` to an imported kernel invalidates it.
- Never executes or imports the analyzed code; summaries are plain data.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass

AUTOTUNE_NAMES = frozenset({"autotune", "libtuner"})


@dataclass(frozen=True)
class KernelSummary:
    name: str
    constexprs: tuple[str, ...]
    autotuned: bool  # @triton.autotune, or a decorator taking configs= and key=
    uses_dot: bool  # tl.dot / tl.dot_scaled in its body


@dataclass(frozen=True)
class ModuleSummary:
    module: str  # dotted name relative to the linted root
    kernels: tuple[KernelSummary, ...]
    functions: tuple[str, ...]  # top-level functions a module exports (helpers)
    imports: tuple[tuple[str, str, str], ...]  # (local name, module, imported name) of from-imports


def module_name(path: str, root: str) -> str:
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    rel = rel[:-3] if rel.endswith(".py") else rel
    rel = rel[: -len("/__init__")] if rel.endswith("/__init__") else rel
    return rel.replace("/", ".")


def summarize(module: str, source: str) -> ModuleSummary:
    """The summary of one module; an unparsable module summarizes as empty."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ModuleSummary(module, (), (), ())
    kernels: list[KernelSummary] = []
    functions: list[str] = []
    imports: list[tuple[str, str, str]] = []
    package = module.rsplit(".", 1)[0] if "." in module else ""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            base = _resolve_relative(package, node.module or "", node.level)
            imports.extend((a.asname or a.name, base, a.name) for a in node.names)
        elif isinstance(node, ast.FunctionDef):
            decorators = [_decorator_name(d) for d in node.decorator_list]
            if any(name.split(".")[-1] == "jit" for name in decorators):
                kernels.append(_kernel(node))
            else:
                functions.append(node.name)
    return ModuleSummary(module, tuple(kernels), tuple(functions), tuple(imports))


def _kernel(node: ast.FunctionDef) -> KernelSummary:
    args = [*node.args.args, *node.args.kwonlyargs]
    constexprs = tuple(a.arg for a in args if a.annotation is not None and "constexpr" in ast.unparse(a.annotation))
    autotuned = False
    for decorator in node.decorator_list:
        name = _decorator_name(decorator)
        keywords = {k.arg for k in decorator.keywords} if isinstance(decorator, ast.Call) else set()
        if name.split(".")[-1] in AUTOTUNE_NAMES or {"configs", "key"} <= keywords:
            autotuned = True
    uses_dot = any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("dot", "dot_scaled")
        for n in ast.walk(node)
    )
    return KernelSummary(node.name, constexprs, autotuned, uses_dot)


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    try:
        return ast.unparse(target)
    except Exception:  # pragma: no cover - ast.unparse handles every expression
        return ""


def _resolve_relative(package: str, module: str, level: int) -> str:
    if not level:
        return module
    parts = package.split(".") if package else []
    parts = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join(p for p in (*parts, module) if p)


class ProjectIndex:
    """Summaries of every module of a linted tree, by dotted name."""

    def __init__(self, summaries: Mapping[str, ModuleSummary], paths: Mapping[str, str]) -> None:
        self._summaries = dict(summaries)
        self._module_of_path = dict(paths)

    @classmethod
    def build(cls, sources: Mapping[str, str], root: str) -> ProjectIndex:
        summaries: dict[str, ModuleSummary] = {}
        paths: dict[str, str] = {}
        for path, source in sorted(sources.items()):
            name = module_name(path, root)
            summaries[name] = summarize(name, source)
            paths[path] = name
        return cls(summaries, paths)

    def summary(self, module: str) -> ModuleSummary | None:
        return self._summaries.get(module)

    def imported_kernel(self, path: str, local_name: str) -> KernelSummary | None:
        """The kernel a file imports under `local_name` from the tree."""
        own = self._summaries.get(self._module_of_path.get(path, ""))
        if own is None:
            return None
        for name, module, imported in own.imports:
            if name != local_name:
                continue
            target = self._summaries.get(module)
            if target is not None:
                return next((k for k in target.kernels if k.name == imported), None)
        return None

    def dependency_digest(self, path: str) -> str:
        """A digest of the summaries of the tree's modules a file imports
        from: part of the file's result-cache key."""
        own = self._summaries.get(self._module_of_path.get(path, ""))
        modules = sorted({m for _, m, _ in own.imports if m in self._summaries}) if own is not None else []
        payload = json.dumps([asdict(self._summaries[m]) for m in modules], sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]
