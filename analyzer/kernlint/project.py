"""Kernels a file imports from another module of its project.

kernlint's model is per file: one libcst parse, one FileModel, and rules ask
it. A launch of a kernel defined in another module (`from .kernels import
mm_kernel`, then `mm_kernel[grid](...)`) needs that kernel's facts: its
constexprs, whether it is autotuned, whether it calls `tl.dot`. When the
launched name is not a kernel of the file, the file's model asks its
`Project` for the name's import; the project finds the module's file the way
Python would from the importing file's place on disk, parses it, builds its
model, and hands back the kernel with the model that answers questions
about its body (`FileModel.home_of`). Findings stay on the launching file.

- **Found from the disk, not the command line.** Relative imports resolve
  from the importer's package; absolute ones from the root of its package
  (the nearest ancestor folder without an `__init__.py`, which is also the
  script's folder for a file outside any package). So a file's findings are
  the same whether it is linted alone, as pre-commit does with changed
  files, or with its whole tree.
- **One level.** An imported module's model is built without a project, so
  its own imports are not followed: import cycles cannot recurse, and the
  cost is one extra parse per imported module per process (models are kept
  by path and content).
- **The result cache.** A file's result now depends on the modules it
  imported kernels from. `reads` lists each file the project looked at
  (path, SHA-256 of its bytes, "" when absent); the engine puts them in the
  FileResult's `dependencies`, the cache stores them with the entry, and a
  hit requires each one unchanged (kernlint.cache).
- Files are only read, never executed or imported; a module that cannot be
  read, decoded or parsed is not found.
"""

from __future__ import annotations

import os

from kernlint.model import FileModel, Kernel, build_model
from kernlint.source import SourceError, decode, file_digest, parse

# Bigger modules are not modelled for an importer (the linted file itself is
# bounded by max-file-size).
MAX_MODULE_BYTES = 1_000_000


class Project:
    """The modules a linted file's imports reach, read on demand."""

    def __init__(self, importer: str, models: dict[tuple[str, str], FileModel | None] | None = None) -> None:
        self.importer = importer
        self.reads: dict[str, str] = {}  # path -> digest of what was read ("" = absent)
        # Shared between the files one process lints: (path, digest) -> model.
        self._models = _MODELS if models is None else models

    def imported_kernel(self, level: int, module: str, name: str) -> tuple[Kernel, FileModel] | None:
        """The kernel that `from <level dots><module> import <name>` binds,
        with the model of the file that defines it; None when the module is
        not a file of the project or `<name>` is not a kernel there."""
        for path in self._candidates(level, module):
            model = self._model(path)
            if model is not None:
                kernel = model.kernels.get(name)
                return (kernel, model) if kernel is not None else None
        return None

    def _candidates(self, level: int, module: str) -> list[str]:
        if level:
            base = os.path.dirname(os.path.abspath(self.importer))
            for _ in range(level - 1):
                base = os.path.dirname(base)
        else:
            base = package_root(self.importer)
        if not os.path.isabs(self.importer):
            base = os.path.relpath(base)  # paths as the user wrote them: relative in, relative out
        parts = [p for p in module.split(".") if p]
        if not parts:
            return [os.path.join(base, "__init__.py")]
        stem = os.path.join(base, *parts)
        return [stem + ".py", os.path.join(stem, "__init__.py")]

    def _model(self, path: str) -> FileModel | None:
        digest = file_digest(path)
        self.reads[path] = digest
        if not digest:
            return None
        key = (os.path.realpath(path), digest)
        if key not in self._models:
            self._models[key] = _build(path)
        return self._models[key]


def package_root(path: str) -> str:
    """The folder Python would import `path`'s top-level package from."""
    folder = os.path.dirname(os.path.abspath(path))
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return folder


def _build(path: str) -> FileModel | None:
    try:
        if os.path.getsize(path) > MAX_MODULE_BYTES:
            return None
        with open(path, "rb") as handle:
            text = decode(handle.read())
        return build_model(path, text, parse(text))
    except (OSError, SourceError, RecursionError):
        return None
    except Exception:  # noqa: BLE001 - a module we cannot model is one we did not find
        return None


_MODELS: dict[tuple[str, str], FileModel | None] = {}
