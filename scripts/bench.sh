#!/usr/bin/env bash
# The main job: installs what it needs, builds Tessera (Release) and runs tessera-bench, the
# side-by-side speed and accuracy report against OpenBLAS. Extra arguments go to the bench.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/deps.sh"
build="${TESSERA_BUILD_DIR:-$root/build}"
jobs="$(nproc 2>/dev/null || echo 2)"
generator=()
command -v ninja > /dev/null && [ ! -f "$build/CMakeCache.txt" ] && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$jobs" --target tessera-bench
mkdir -p "$build/results"
# Some machines export OPENBLAS_CORETYPE (and OPENBLAS_L2_SIZE) for other software's sake;
# the anchor should run at its best, so tessera-bench picks the core type itself unless
# TESSERA_BENCH_KEEP_CORETYPE=1 asks to keep what the environment says.
if [ "${TESSERA_BENCH_KEEP_CORETYPE:-0}" != 1 ]; then
  unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
fi
exec "$build/bin/tessera-bench" --json "$build/results/bench.json" "$@"
