#!/usr/bin/env bash
# Run a kernlint module straight from a repository checkout, without
# installing it (the GPU machine has no network for `pip install -e .`).
#
#   kernels/run_on_gpu.sh -m kernlint.kernels.verify --record kernels/measurements/h100.json
#
# It builds a throwaway `kernlint` package whose path is the checkout's
# analyzer/ and whose `kernels`/`rules` subpackages are links to kernels/ and
# rules/ (the layout pyproject/setup.py install), then runs python3 "$@".
# The stub __init__ skips analyzer/__init__.py, so the lint engine's
# dependencies (libcst, ...) need not be present to run the kernel library.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BOOT="$(mktemp -d)"
mkdir -p "$BOOT/kernlint"
printf '__path__ = [__path__[0], %s]\n' "'$ROOT/analyzer'" > "$BOOT/kernlint/__init__.py"
ln -s "$ROOT/kernels" "$BOOT/kernlint/kernels"
ln -s "$ROOT/rules" "$BOOT/kernlint/rules"
export PYTHONPATH="$BOOT${PYTHONPATH:+:$PYTHONPATH}"
exec "${PYTHON:-python3}" "$@"
