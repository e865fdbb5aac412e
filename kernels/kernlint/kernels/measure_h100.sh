#!/usr/bin/env bash
# The committed H100 record, as it was made: the library in parts (one GPU
# lease each, at most 10 minutes a command), merged into one record, and
# `kernlint verify FILE` on the seed's files. Run from the repository root on
# the GPU machine: kernels/kernlint/kernels/measure_h100.sh PART OUTDIR
#   PART: a | b | c | d | e | files  (the whole library, five leases)
#         kl015                        (issue 23: KL015 again, after part c's gemv_mlp KernelBench-mode mean
#                                       caught one repeat's spike: 0.52x mean, 1.00x median)
#         issue26                      (the pairs of KL017, KL018, KL019)
#         issue26b                     (the pairs of KL020, KL021, KL022, issue 26 classes 2, 3 and 7)
#         issue27b                     (the pairs of KL023-KL026 and KL007's masked attention; KL026
#                                       was measured alone, in a lease of its own, with --pair)
#         dead27                       (issue 27 item 5's last case: the pair of KL027, not yet measured)
#         host28                       (the pair of KL028, host-bound forward vs. one CUDA graph replay)
#         library29                    (the pair of KL029, PyTorch's max pool vs. an index-free Triton pool)
#         layout31                     (the pair of KL031, measured on an H200 only so far: a TF32 GEMM reading B
#                                       row-major vs. a K-major copy; then take it off tests' AWAITING_GPU_MEASUREMENT)
#         awaiting                     (the pairs of KL032 and KL033, measured on an H200 only so far; then take
#                                       them off tests' AWAITING_GPU_MEASUREMENT)
#         calibration                  (the probes the H100 record lacks and the model reads where a record has them,
#                                       each measured on an H200 so far: 3-D and transposed convolutions,
#                                       tl.dot per-program, store and small-K rates, A read M-major, row tiles,
#                                       fp16 softmax, permuted copies; about 6 minutes on an H200, in pieces.
#                                       Writes OUT/calibration_h100.json, the library's record with these
#                                       probes added as a supplement: copy it over
#                                       kernels/kernlint/kernels/measurements/calibration_h100.json)
#         eager1 | eager2              (issue 13, one lease each: eager1 the pairs whose before/after
#                                       timings broke a target; eager2 the other pairs whose launch
#                                       path changed, and seed_all_fixes)
# then, here: python -m kernlint.kernels.merge_records OUT/part*.json -o kernels/kernlint/kernels/measurements/h100.json
# (or, for a re-measured subset: merge_records kernels/kernlint/kernels/measurements/h100.json OUT/part_eager1.json ...
#  -o kernels/kernlint/kernels/measurements/h100.json: the new results replace the old ones of their pairs and shapes).
# verify writes its record after every result, so a run cut off at the lease's end keeps what it measured.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
RUN=kernels/kernlint/kernels/run_on_gpu.sh
OUT="${2:?usage: measure_h100.sh PART OUTDIR}"
mkdir -p "$OUT"
TRIALS="${TRIALS:-3}"
verify() { local part=$1; shift; $RUN -m kernlint.kernels.verify --trials "$TRIALS" "$@" --record "$OUT/part_$part.json" 2>&1 | tee "$OUT/part_$part.log"; }
case "$1" in
  a) verify a --pair seed_all_fixes --pair kl003_hardcoded_launch_config ;;
  b) verify b --pair kl001_upcast_before_dot --pair kl002_per_call_relayout --pair kl016_upcast_before_torch_matmul ;;
  c) verify c --pair kl004_unfused_epilogue --pair kl007_materialized_attention --pair kl011_per_call_allocation --pair kl015_small_dot_tile ;;
  d) verify d --pair kl005_per_step_launch_loop --pair kl006_host_sync_in_hot_path --pair kl008_multipass_softmax ;;
  e) verify e --pair kl009_missing_l2_swizzle --pair kl010_unconditional_k_mask ;;
  kl015) verify kl015 --pair kl015_small_dot_tile ;;
  issue26) verify issue26 --pair kl017_jit_in_hot_path --pair kl018_fp32_dot_without_tf32 --pair kl019_scalar_programs ;;
  issue26b) verify issue26b --pair kl020_gemm_without_dot --pair kl021_too_few_programs --pair kl022_torch_after_kernel ;;
  issue27b) verify issue27b --pair kl007_masked_attention --pair kl023_unfused_op_chain --pair kl024_recurrent_module \
    --pair kl025_structure_blind_gemm --pair kl026_collapsible_gemm ;;
  dead27) verify dead27 --pair kl027_dead_or_constant_result ;;
  host28) verify host28 --pair kl028_host_bound_forward ;;
  library29) verify library29 --pair kl029_slow_library_kernel ;;
  layout31) verify layout31 --pair kl031_tf32_operand_layout ;;
  awaiting) verify awaiting --pair kl032_fp32_torch_gemm --pair kl033_multipass_norm ;;
  calibration)
    cp kernels/kernlint/kernels/measurements/calibration_h100.json "$OUT/calibration_h100.json"
    $RUN -m kernlint.kernels.calibrate --record "$OUT/calibration_h100.json" --only conv3d_ --only conv_transpose \
      --only triton_dot_programs_ --only triton_dot_store_ --only triton_dot_smallk_ --only triton_dot_tile_tf32m \
      --only triton_row_tile_ --only copy_heads_ --only library_softmax_fp16 --only library_log_softmax_fp16 \
      2>&1 | tee "$OUT/calibration_supplement.log" ;;
  eager1) verify eager1 --pair kl001_upcast_before_dot --pair kl005_per_step_launch_loop --pair kl006_host_sync_in_hot_path \
    --pair kl010_unconditional_k_mask --pair kl015_small_dot_tile ;;
  eager2) verify eager2 --pair kl004_unfused_epilogue --pair kl007_materialized_attention --pair kl009_missing_l2_swizzle \
    --pair seed_all_fixes ;;
  files)
    D=kernels/kernlint/kernels/measurements/verify_file
    for f in kernel kernel_fixed; do
      $RUN -m kernlint.kernels.verify_file fixtures/seed/$f.py --reference fixtures/seed/reference.py --trials 5 \
        --timeout 240 --static $D/seed_$f.static.json --record "$OUT/seed_${f}_h100.json" 2>&1 | tee "$OUT/seed_$f.log"
    done ;;
  *) echo "unknown part $1" >&2; exit 2 ;;
esac
