#!/usr/bin/env bash
# Bounded fuzzing (clang's libFuzzer with ASan + UBSan): builds the harnesses of tests/fuzz in
# build-fuzz, runs each for TESSERA_FUZZ_SECONDS (default 60) from its seeds; non-zero on a crash.
#
# TESSERA_FUZZ_SECONDS   seconds per harness (default 60)
# TESSERA_FUZZ_HARNESSES which ones (default "sparse gemm_args matrix_market")
# TESSERA_FUZZ_BUILD_DIR build directory (default build-fuzz); TESSERA_FUZZ_JOBS build jobs
# Crashing inputs and the log of a failed run go to <build>/fuzz-artifacts/<harness>/; the inputs
# libFuzzer finds on the way stay in a temporary directory (the committed seeds are only read).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${TESSERA_FUZZ_SECONDS:-60}"
build="${TESSERA_FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${TESSERA_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}"
read -r -a harnesses <<< "${TESSERA_FUZZ_HARNESSES:-sparse gemm_args matrix_market}"

# clang with libFuzzer and the sanitizer runtimes, and libomp for OpenMP under clang: tried on a
# two-line program; installed (Debian/Ubuntu, as root) when that fails.
probe() {
  local dir
  dir="$(mktemp -d)"
  printf '%s\n' '#include <cstddef>' '#include <cstdint>' \
    'extern "C" int LLVMFuzzerTestOneInput(const uint8_t *, size_t) { return 0; }' > "$dir/probe.cpp"
  printf '%s\n' '#include <omp.h>' 'int main() { return omp_get_max_threads() > 0 ? 0 : 1; }' > "$dir/omp.cpp"
  local ok=0
  command -v clang++ > /dev/null &&
    clang++ -fsanitize=fuzzer,address,undefined "$dir/probe.cpp" -o "$dir/probe" 2> /dev/null &&
    clang++ -fopenmp "$dir/omp.cpp" -o "$dir/omp" 2> /dev/null || ok=1
  rm -rf "$dir"
  return "$ok"
}
if ! probe; then
  if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    packages=(clang libomp-dev)
    apt-cache show libclang-rt-dev > /dev/null 2>&1 && packages+=(libclang-rt-dev)
    echo "tessera fuzz: installing ${packages[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${packages[@]}" > /dev/null
  fi
  probe || { echo "tessera fuzz: clang++ with -fsanitize=fuzzer and -fopenmp is needed (Debian: clang libomp-dev libclang-rt-dev)" >&2; exit 1; }
fi

generator=()
command -v ninja > /dev/null && [ ! -f "$build/CMakeCache.txt" ] && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_FUZZ=ON -DTESSERA_WITH_CUDA=OFF \
      -DTESSERA_BUILD_BENCH=OFF -DTESSERA_BUILD_DOCS=OFF -DTESSERA_BUILD_TESTS=OFF > /dev/null
targets=()
for h in "${harnesses[@]}"; do targets+=("tessera_fuzz_$h"); done
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

work="$(mktemp -d "${TMPDIR:-/tmp}/tessera-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
artifacts="$build/fuzz-artifacts"
failed=0
for h in "${harnesses[@]}"; do
  mkdir -p "$work/$h" "$artifacts/$h"
  log="$work/$h.log"
  # The first directory receives what libFuzzer finds; the committed seeds are read only.
  rc=0
  "$build/fuzz/tessera_fuzz_$h" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$h/" "$work/$h" "$root/tests/fuzz/corpus/$h" > "$log" 2>&1 || rc=$?
  runs="$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 runs in \2 s/p' "$log" | tail -n 1)"
  [ -n "$runs" ] || runs="$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1 runs/p' "$log" | tail -n 1)"
  found="$(find "$work/$h" -type f | wc -l)"
  if [ "$rc" = 0 ]; then
    echo "fuzz $h: ${runs:-? runs}, no crash ($found new corpus inputs, not kept)"
  else
    failed=1
    cp "$log" "$artifacts/$h/fuzz.log"
    crash="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)"
    echo "fuzz $h: CRASH (exit $rc) after ${runs:-? runs}; input: ${crash:-none written}; log: $artifacts/$h/fuzz.log"
    grep -E 'contract broken|runtime error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|SUMMARY' "$log" | head -n 5 | sed 's/^/  /' || true
    grep -E '^ +#[0-9]+ ' "$log" | grep -v -E 'libFuzzer|fuzzer::|__sanitizer|libc\.so|libc_start|in main |in _start|abort|raise|pthread_kill' | head -n 8 | cut -c1-200 | sed 's/^/  /' || true
    [ -z "$crash" ] || echo "  replay: TESSERA_FUZZ_TRACE=1 $build/fuzz/tessera_fuzz_$h $crash"
  fi
done
exit "$failed"
