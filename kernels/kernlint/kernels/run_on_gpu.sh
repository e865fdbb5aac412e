#!/usr/bin/env bash
# Run a kernlint module straight from a repository checkout, without
# installing it (the GPU machine has no network for `pip install -e .`).
#
#   kernels/kernlint/kernels/run_on_gpu.sh -m kernlint.kernels.verify --record kernels/kernlint/kernels/measurements/h100.json
#
# `kernlint` is a PEP 420 namespace package over three path roots, so putting
# analyzer/, rules/ and kernels/ on PYTHONPATH is the whole installation.
# Running the kernel library imports only kernlint.kernels (and what it
# names), so the lint engine's dependencies (libcst, ...) need not be present.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
export PYTHONPATH="$ROOT/analyzer:$ROOT/rules:$ROOT/kernels${PYTHONPATH:+:$PYTHONPATH}"
exec "${PYTHON:-python3}" "$@"
