#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds Tessera (Release) and runs every CTest
# test (unit, ABI and drop-in, install, conformance, Python and Fortran bindings); args go to ctest.
# With CI set in the environment, compiler warnings in our code are errors (TESSERA_WERROR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/deps.sh"
build="${TESSERA_BUILD_DIR:-$root/build}"
jobs="$(nproc 2>/dev/null || echo 2)"
generator=()
command -v ninja > /dev/null && [ ! -f "$build/CMakeCache.txt" ] && generator=(-G Ninja)
werror=()
[ -n "${CI:-}" ] && werror=(-DTESSERA_WERROR=ON)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${werror[@]}"
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
