"""Kernels a file imports from another module of its project.

kernlint's model is per file: one parse, one FileModel, and rules ask
it. A launch of a kernel defined in another module (`from .kernels import
mm_kernel`, then `mm_kernel[grid](...)`) needs that kernel's facts: its
constexprs, whether it is autotuned, whether it calls `tl.dot`; a call of
a helper function imported the same way needs what the helper does to its
arguments (a per-call relayout copy, KL002). When the launched name is not
a kernel of the file, or the called name not a function of it, the file's
model asks its `Project` for the name's import; the project finds the module's file the way
Python would from the importing file's place on disk, parses it, builds its
model, and hands back the kernel with the model that answers questions
about its body (`FileModel.home_of`, `FileModel.imported_function`). Findings stay on the launching file.

- **Found from the disk, not the command line.** Relative imports resolve
  from the importer's package; absolute ones from the root of its package
  (the nearest ancestor folder without an `__init__.py`, which is also the
  script's folder for a file outside any package), or, as folders without
  `__init__.py` are namespace packages, from the nearest ancestor folder
  that holds the module's top-level package; a package found nowhere up the
  tree (torch, triton) is not a module of the project. So a file's findings are
  the same whether it is linted alone, as pre-commit does with changed
  files, or with its whole tree.
- **The definition, not the imports of the definition.** Re-exports are
  followed (a package's `__init__.py` doing `from .shape_utils import
  dim_compress`, up to three hops), but the defining module's model is
  built without a project, so what *its* kernels and helpers import is not:
  import cycles cannot recurse, and the cost is one extra parse per module
  read per process (models are kept by path and content).
- **The result cache.** A file's result now depends on the modules it
  imported kernels from. `reads` lists each file the project looked at
  (path, SHA-256 of its bytes, "" when absent); the engine puts them in the
  FileResult's `dependencies`, the cache stores them with the entry, and a
  hit requires each one unchanged (kernlint.cache).
- Files are only read, never executed or imported; a module that cannot be
  read, decoded or parsed is not found.
"""

from __future__ import annotations

import ast
import hashlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernlint.model import FileModel, FunctionInfo, Kernel, build_model
from kernlint.source import SourceError, decode, parse

if TYPE_CHECKING:
    import libcst as cst

# Bigger modules are not modelled for an importer (the linted file itself is
# bounded by max-file-size).
MAX_MODULE_BYTES = 1_000_000
# Re-exports followed from the imported module to the defining one.
MAX_REEXPORTS = 3


class Project:
    """The modules a linted file's imports reach, read on demand."""

    def __init__(self, importer: str) -> None:
        self.importer = importer
        self.reads: dict[str, str] = {}  # path -> digest of what was read ("" = absent)
        self._modules: dict[tuple[str, int, str], tuple[str, Outline] | None] = {}  # (importer, level, module)
        self._definitions: dict[tuple[str, int, str, str, str], tuple[str, FileModel] | None] = {}

    def imported_kernel(self, level: int, module: str, name: str) -> tuple[Kernel, FileModel] | None:
        """The kernel that `from <level dots><module> import <name>` binds,
        with the model of the file that defines it; None when the module is
        not a file of the project or `<name>` is not a kernel there."""
        found = self._definition(self.importer, level, module, name, "jit")
        kernel = found[1].kernels.get(found[0]) if found is not None else None
        return (kernel, found[1]) if kernel is not None and found is not None else None

    def imported_function(
        self, level: int, module: str, name: str, containing: str = ""
    ) -> tuple[FunctionInfo, FileModel] | None:
        """The top-level function (not a kernel) that the import binds, with
        its file's model: a helper whose body decides what a call does. A
        module whose text lacks `containing` is not modelled (a question
        about `.contiguous()` copies needs no model of a module without one)."""
        found = self._definition(self.importer, level, module, name, containing)
        if found is None or found[0] in found[1].kernels:
            return None
        function = found[1].function(found[0])
        return (function, found[1]) if function is not None else None

    def _definition(
        self, importer: str, level: int, module: str, name: str, containing: str, hops: int = 0
    ) -> tuple[str, FileModel] | None:
        """The module that defines `name` and its name there, following
        re-exports (`from .shape_utils import dim_compress` in a package's
        `__init__.py`) up to MAX_REEXPORTS hops, each relative to the module
        that makes it. Modules are outlined with Python's own parser (ten
        times faster than libcst); only the defining one is modelled, and
        only when its text holds `containing`."""
        key = (importer, level, module, name, containing)
        if key not in self._definitions:
            self._definitions[key] = self._find_definition(importer, level, module, name, containing, hops)
        return self._definitions[key]

    def _find_definition(
        self, importer: str, level: int, module: str, name: str, containing: str, hops: int
    ) -> tuple[str, FileModel] | None:
        found = self._module(importer, level, module)
        if found is None:
            return None
        path, outline = found
        if name in outline.defines:
            if containing not in outline.source_of(name):
                return None
            model = self._model(path, outline)
            return (name, model) if model is not None else None
        source = outline.reexports.get(name)
        if source is None or hops >= MAX_REEXPORTS:
            return None
        return self._definition(path, *source, containing, hops=hops + 1)

    def _module(self, importer: str, level: int, module: str) -> tuple[str, Outline] | None:
        key = (importer, level, module)
        if key not in self._modules:
            self._modules[key] = None
            for path in self._candidates(importer, level, module):
                outline = self._outline(path)
                if outline is not None:
                    self._modules[key] = (path, outline)
                    break
        return self._modules[key]

    def _candidates(self, importer: str, level: int, module: str) -> list[str]:
        if level:
            base = os.path.dirname(os.path.abspath(importer))
            for _ in range(level - 1):
                base = os.path.dirname(base)
        else:
            found = import_root(importer, module.split(".")[0])
            if found is None:
                return []  # a third-party package (torch, triton): not a module of the project
            base = found
        if not os.path.isabs(importer):
            base = os.path.relpath(base)  # paths as the user wrote them: relative in, relative out
        parts = [p for p in module.split(".") if p]
        if not parts:
            return [os.path.normpath(os.path.join(base, "__init__.py"))]
        stem = os.path.normpath(os.path.join(base, *parts))
        return [stem + ".py", os.path.join(stem, "__init__.py")]

    def _outline(self, path: str) -> Outline | None:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            self.reads[path] = ""  # absent: a result that looked for it depends on its absence
            return None
        digest = hashlib.sha256(data).hexdigest()
        self.reads[path] = digest
        if len(data) > MAX_MODULE_BYTES:
            return None
        key = (os.path.realpath(path), digest)
        if key not in _OUTLINES:
            _OUTLINES[key] = _outline(data)
        return _OUTLINES[key]

    def _model(self, path: str, outline: Outline) -> FileModel | None:
        key = (os.path.realpath(path), self.reads[path])
        if key not in _MODELS:
            _MODELS[key] = _build(path, outline.text)
        return _MODELS[key]


@dataclass(frozen=True)
class Outline:
    """What the top level of a module defines and imports, from Python's
    `ast`: enough to follow a name to the module that defines it."""

    text: str
    defines: frozenset[str]  # functions, classes and names assigned at the top level
    reexports: dict[str, tuple[int, str, str]]  # local name -> (level, module, name) of a from-import
    lines: dict[str, tuple[int, int]]  # name -> (first, last) line of a function or class

    def source_of(self, name: str) -> str:
        """The text of the definition of `name` (a function's or class's
        lines), or the whole module for a name assigned at the top level
        (`kernel = triton.jit(fn)` reads `fn` from elsewhere in it)."""
        span = self.lines.get(name)
        if span is None:
            return self.text
        return "\n".join(self.text.splitlines()[span[0] - 1 : span[1]])


def _outline(data: bytes) -> Outline | None:
    try:
        text = decode(data)
        tree = ast.parse(text)
    except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    defines: set[str] = set()
    reexports: dict[str, tuple[int, str, str]] = {}
    lines: dict[str, tuple[int, int]] = {}
    statements: list[ast.stmt] = list(tree.body)
    while statements:
        node = statements.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defines.add(node.name)
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            lines[node.name] = (first, node.end_lineno or node.lineno)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defines.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    reexports[alias.asname or alias.name] = (node.level, node.module or "", alias.name)
        elif isinstance(node, (ast.If, ast.Try)):  # `if TYPE_CHECKING:`, `try: import ...`
            statements.extend(node.body)
            statements.extend(node.orelse)
            if isinstance(node, ast.Try):
                statements.extend(s for handler in node.handlers for s in handler.body)
    return Outline(text, frozenset(defines), reexports, lines)


def import_root(path: str, top: str) -> str | None:
    """The folder an absolute import of package `top` resolves from: the
    root of `path`'s package when `top` is there, else the nearest ancestor
    folder holding `top` (folders without `__init__.py` are namespace
    packages, so the package root alone can stop short); None for a
    package outside the tree."""
    root = package_root(path)
    folders = [root]
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        folders.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for base in folders:
        if os.path.isdir(os.path.join(base, top)) or os.path.isfile(os.path.join(base, top + ".py")):
            return base
    return None


def package_root(path: str) -> str:
    """The folder Python would import `path`'s top-level package from."""
    folder = os.path.dirname(os.path.abspath(path))
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return folder


def parsed_already(path: str, text: str) -> cst.Module | None:
    """`path`'s libcst tree when this process modelled that file, with this
    very text, for an importer: libcst's parse is most of a file's cost
    (issue 24), and imported modules of liger-kernel are 15% of its parse."""
    if not _MODELS:
        return None
    model = _MODELS.get((os.path.realpath(path), hashlib.sha256(text.encode("utf-8")).hexdigest()))
    return model.module if model is not None else None


def _build(path: str, text: str) -> FileModel | None:
    try:
        return build_model(path, text, parse(text))
    except Exception:  # noqa: BLE001 - a module we cannot model (RecursionError included) is one we did not find
        return None


# Shared between the files one process lints, by (real path, digest).
_MODELS: dict[tuple[str, str], FileModel | None] = {}
_OUTLINES: dict[tuple[str, str], Outline | None] = {}
