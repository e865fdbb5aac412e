#!/usr/bin/env bash
# The cost model's record, as it was made on the GPU machine (issue 25), run
# from the repository root: the calibration probes, then `kernlint verify
# FILE` on each before/after pair of fixtures/costmodel/ (the validation set).
#   kernels/kernlint/kernels/measure_costmodel.sh OUTDIR calibrate            # calibration_h100.json
#   kernels/kernlint/kernels/measure_costmodel.sh OUTDIR NAME [NAME ...]      # NAME: kl002_decode, ...
# then, here: copy OUTDIR/calibration_h100.json into kernels/kernlint/kernels/measurements/ and
# OUTDIR/vf/*.json into kernels/kernlint/kernels/measurements/costmodel/.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
RUN=kernels/kernlint/kernels/run_on_gpu.sh
OUT="${1:?usage: measure_costmodel.sh OUTDIR calibrate|NAME...}"
shift
mkdir -p "$OUT/vf"
for name in "$@"; do
  start=$(date +%s)
  if [ "$name" = calibrate ]; then
    timeout 540 $RUN -m kernlint.kernels.calibrate --record "$OUT/calibration_h100.json" >"$OUT/calibrate.log" 2>&1
    echo "calibrate rc=$? $(($(date +%s) - start))s"
    tail -30 "$OUT/calibrate.log"
    continue
  fi
  timeout 150 $RUN -m kernlint.kernels.verify_file "fixtures/costmodel/${name}_after.py" \
    --reference "fixtures/costmodel/${name}_before.py" --trials 3 --timeout 120 \
    --record "$OUT/vf/${name}.json" >"$OUT/vf/${name}.log" 2>&1
  echo "$name rc=$? $(($(date +%s) - start))s"
  grep -i "speedup" "$OUT/vf/${name}.log" | tail -2
done
