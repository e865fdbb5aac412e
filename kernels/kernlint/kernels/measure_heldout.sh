#!/usr/bin/env bash
# The held-out corpus on the GPU machine (issue 26's evaluation): `kernlint verify FILE` on each
# solution file of fixtures/heldout/, timing its ModelNew against its own Model. Run from the
# repository root:
#   kernels/kernlint/kernels/measure_heldout.sh OUTDIR [FILE ...]   # default: every file
# then, here: copy OUTDIR/*.json into kernels/kernlint/kernels/measurements/heldout/ and run
# python scripts/heldout.py.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
RUN=kernels/kernlint/kernels/run_on_gpu.sh
OUT="${1:?usage: measure_heldout.sh OUTDIR [FILE ...]}"
shift
mkdir -p "$OUT"
files=("$@")
[ ${#files[@]} -gt 0 ] || files=($(ls fixtures/heldout/*.py | grep -v check_cpu.py))
for path in "${files[@]}"; do
  name=$(basename "$path" .py)
  start=$(date +%s)
  timeout $(( ${TIMEOUT:-120} + 30 )) $RUN -m kernlint.kernels.verify_file "$path" --trials "${TRIALS:-3}" --timeout "${TIMEOUT:-120}" \
    --record "$OUT/$name.json" >"$OUT/$name.log" 2>&1
  echo "$name rc=$? $(($(date +%s) - start))s $(grep -i '^speedup' "$OUT/$name.log" | tail -1)"
done
