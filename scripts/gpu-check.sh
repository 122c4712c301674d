#!/usr/bin/env bash
# The CUDA backend on a machine with a GPU: builds Tessera with its plugin, times it against
# cuBLAS / cuSPARSE, runs the `cuda` tests and compute-sanitizer, with every log and JSON in OUTDIR
# (summary.txt, build.log, bench_*.log, *.json, ctest.log, sanitize.log).
#
# usage: bash scripts/gpu-check.sh OUTDIR [STEP ...]
#   steps (default: build bench-gemm tests sanitize):
#     build        configure and build everything (the plugin, the tests and the bench too)
#     bench-gemm   tessera-bench --backend cuda: the gpu preset in both precisions (TF32 off),
#                  3xTF32 against cuBLAS FP32, and host operands end to end
#     bench-spmv   tessera-bench spmv --backend cuda: the gpu preset, float and double
#     bench-spmm   tessera-bench spmm --backend cuda: the SpMM set beside cuSPARSE's SpMM
#     bench-multigpu  tessera-bench multigpu: host operands on one GPU and on all, beside
#                  cuBLASXt (MULTIGPU_ARGS adds arguments, e.g. "--shapes 16384 --reps 2")
#     tune         tessera-bench tune: the CUDA gemm's tuning table from training shapes
#                  (TUNE_ARGS adds arguments, e.g. "--seed 1 --count 200"), in OUTDIR/tuning.tsv
#     bench-sweep  tessera-bench --backend cuda --sweep: random shapes against cuBLAS, with the
#                  built-in tables and with the rules alone (SWEEP_ARGS, e.g. "--sweep 300
#                  --seed 2 --sweep-aligned")
#     tests        ctest -L cuda (CTEST_ARGS adds arguments, e.g. "-R Stream|Fringe")
#     sanitize     compute-sanitizer memcheck and racecheck on the gemm and SpMV tests
# environment: TESSERA_BUILD_DIR (default build-gpu), CUDA_ARCHS (default: the project's "90;80"),
#              CMAKE_PREFIX_PATH as usual (where GoogleTest is, if not installed system-wide).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: gpu-check.sh OUTDIR [build|bench-gemm|bench-spmv|tests|sanitize ...]}"
shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build bench-gemm tests sanitize)
build="${TESSERA_BUILD_DIR:-$root/build-gpu}"
bench="$build/bin/tessera-bench"
tests="$build/bin/tessera_cuda_tests"
for s in "${steps[@]}"; do  # a misspelt step fails now, not after a build of minutes
  case "$s" in
    build | bench-gemm | bench-spmv | bench-spmm | bench-multigpu | tune | bench-sweep | tests | sanitize) ;;
    *) echo "gpu-check: unknown step '$s' (build, bench-gemm, bench-spmv, bench-spmm, bench-multigpu, tune, bench-sweep, tests, sanitize)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
status=0
export NVIDIA_TF32_OVERRIDE=0   # cuBLAS's FP32 anchor stays FP32

step_build() {
  local archs=()
  [ -n "${CUDA_ARCHS:-}" ] && archs=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS")
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_WITH_CUDA=ON \
        -DTESSERA_BUILD_DOCS=OFF "${archs[@]}" > "$out/build.log" 2>&1 &&
    cmake --build "$build" -j "$(nproc)" >> "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; return 1; }
}

step_bench_gemm() {
  "$bench" --backend cuda --preset gpu --dtype both --min-time 0.1 --json "$out/gemm.json" \
    2>&1 | tee "$out/bench_gemm.log" &&
  TESSERA_CUDA_MATH=tf32x3 "$bench" --backend cuda --shapes 2048,4096,8192 --dtype s \
    --min-time 0.1 --json "$out/tf32x3.json" 2>&1 | tee -a "$out/bench_gemm.log" &&
  "$bench" --backend cuda --cuda-operands host --shapes 4096,8192 --dtype both --min-time 0.5 \
    --json "$out/host.json" 2>&1 | tee -a "$out/bench_gemm.log"
}

step_bench_spmv() {
  "$bench" spmv --backend cuda --preset gpu --dtype both --min-time 0.1 --json "$out/spmv.json" \
    2>&1 | tee "$out/bench_spmv.log"
}

step_bench_spmm() {
  "$bench" spmm --backend cuda --min-time 0.05 --reps 3 --json "$out/spmm.json" \
    2>&1 | tee "$out/bench_spmm.log"
}

step_bench_multigpu() {
  # shellcheck disable=SC2086
  "$bench" multigpu ${MULTIGPU_ARGS:-} --json "$out/multigpu.json" 2>&1 | tee "$out/bench_multigpu.log"
}
step_tune() {
  # shellcheck disable=SC2086
  "$bench" tune ${TUNE_ARGS:-} --out "$out/tuning.tsv" 2>&1 | tee "$out/tune.log"
}
step_bench_sweep() {
  local args="${SWEEP_ARGS:---sweep 300 --seed 2 --sweep-aligned}" rc=0
  # shellcheck disable=SC2086
  "$bench" --backend cuda $args --reference sampled --min-time 0.02 --json "$out/sweep.json" \
    > "$out/bench_sweep.log" 2>&1 || rc=1
  # shellcheck disable=SC2086
  TESSERA_CUDA_TUNING=off "$bench" --backend cuda $args --reference sampled --min-time 0.02 \
    --json "$out/sweep_rules.json" > "$out/bench_sweep_rules.log" 2>&1 || rc=1
  grep -A13 "^sweep" "$out/bench_sweep.log" "$out/bench_sweep_rules.log"
  return $rc
}
step_tests() {
  # shellcheck disable=SC2086
  ctest --test-dir "$build" -L cuda --output-on-failure --timeout 900 ${CTEST_ARGS:-} \
    2>&1 | tee "$out/ctest.log" | grep -E "tests passed|tests failed|\*\*\*Failed|\*\*\*Timeout|Not Run|Skipped"
}

sanitize() {  # tool, gtest filter, then --sanitizer-options and VAR=value settings; appends to sanitize.log
  local tool="$1" filter="$2" log="$out/sanitize.run.log"
  shift 2
  local opts=() envs=()
  for a in "$@"; do case "$a" in --*) opts+=("$a") ;; *) envs+=("$a") ;; esac; done
  env "${envs[@]}" compute-sanitizer --tool "$tool" --error-exitcode 3 "${opts[@]}" "$tests" \
    --gtest_filter="$filter" > "$log" 2>&1
  local rc=$?
  local line="compute-sanitizer $tool [$*] $filter: exit $rc; $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)"
  { echo "== $line"; cat "$log"; } >> "$out/sanitize.log"
  rm -f "$log"
  echo "$line"
  return $rc
}

step_sanitize() {
  local gemm="Cuda/CudaGemm.ShapesLayoutsOpsScalars/*:Cuda/CudaGemm.SkinnySplitK/*:Cuda/CudaGemm.NanInfPropagate/*"
  # These tests fill the device's memory on purpose: every allocation refused on the way is an
  # API error by design, so they run apart, with API-error reporting off and memcheck still on.
  local oom="CudaMath.PanelsWithoutMemoryFallBack:CudaSpmv.DeviceOutOfMemoryIsAnError"
  local rc=0
  sanitize memcheck "$gemm:CudaStreamK.*:CudaGemmFringe.*:CudaRefusals.*" TESSERA_CUDA_STREAMK=last || rc=1
  sanitize memcheck "CudaPointers.*:CudaAutoRouting.*" TESSERA_CUDA_OVERLAP=on || rc=1
  sanitize memcheck "$gemm:CudaGemmShortK.*" TESSERA_CUDA_PERSISTENT=on TESSERA_CUDA_DGEMM=128x128 || rc=1
  sanitize memcheck "CudaDevices.*" TESSERA_CUDA_SPREAD=on TESSERA_CUDA_OVERLAP=on || rc=1
  sanitize memcheck "CudaMath.*-$oom" TESSERA_CUDA_MATH=tf32x3 || rc=1
  sanitize memcheck "CudaSpmv.*:CudaSpmvNonFinite.*:Matrices/CudaSpmvGenerated.*-$oom" || rc=1
  sanitize memcheck "CudaSpmm.*" || rc=1
  sanitize memcheck "$oom" --report-api-errors=no TESSERA_CUDA_MATH=tf32x3 || rc=1
  sanitize racecheck "CudaStreamK.*:CudaGemmFringe.*" TESSERA_CUDA_STREAMK=last || rc=1
  sanitize racecheck "CudaMath.*-$oom" TESSERA_CUDA_MATH=tf32x3 || rc=1
  sanitize racecheck "Cuda/CudaGemm.ShapesLayoutsOpsScalars/dgemm" TESSERA_CUDA_PERSISTENT=on TESSERA_CUDA_DGEMM=128x128 || rc=1
  sanitize racecheck "Matrices/CudaSpmvGenerated.*" TESSERA_CUDA_CSR_KERNEL=tiles || rc=1
  sanitize racecheck "CudaSpmm.*" || rc=1
  return $rc
}

# summary.txt: the device and each step's time and exit status.
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader \
  2>&1 | tee "$out/summary.txt"
for s in "${steps[@]}"; do
  echo "== $s ($(date -u +%H:%M:%S) UTC)" | tee -a "$out/summary.txt"
  start=$SECONDS
  case "$s" in
    build) step_build ;;
    bench-gemm) step_bench_gemm ;;
    bench-spmv) step_bench_spmv ;;
    bench-spmm) step_bench_spmm ;;
    bench-multigpu) step_bench_multigpu ;;
    tune) step_tune ;;
    bench-sweep) step_bench_sweep ;;
    tests) step_tests ;;
    sanitize) step_sanitize ;;
  esac
  rc=$?
  echo "== $s: exit $rc after $((SECONDS - start)) s" | tee -a "$out/summary.txt"
  [ $rc -ne 0 ] && status=1
  [ "$s" = build ] && [ $rc -ne 0 ] && break
done
exit $status
