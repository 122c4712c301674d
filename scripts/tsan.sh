#!/usr/bin/env bash
# ThreadSanitizer over the tests that call the library from many user threads at once: builds
# build-tsan (TESSERA_TSAN=ON; no CUDA plugin, bench or docs), the library and the two test
# programs that hold those tests, and runs them through CTest, stopping at the first report.
#
# GNU OpenMP (libgomp) is not built with ThreadSanitizer, so the synchronisation inside an
# OpenMP team is invisible to it: every team gets one thread (OMP_THREAD_LIMIT=1, whatever a
# handle asks for), and the races looked for are those between the user's threads, in the
# library's own code. Nothing is suppressed. Args go to ctest; TESSERA_TSAN_BUILD_DIR moves the
# build directory.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TESSERA_TSAN_BUILD_DIR:-$root/build-tsan}"
jobs="$(nproc 2>/dev/null || echo 2)"
generator=()
command -v ninja > /dev/null && [ ! -f "$build/CMakeCache.txt" ] && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_TSAN=ON \
      -DTESSERA_WITH_CUDA=OFF -DTESSERA_BUILD_BENCH=OFF -DTESSERA_BUILD_DOCS=OFF
cmake --build "$build" -j "$jobs" --target tessera_behaviour_tests tessera_sparse_tests

# The tests of many user threads (each its own process under CTest, so first calls race too).
# Threads.CallsFromInsideAnOpenMpRegion is left out: its threads are OpenMP's.
tests='^(Threads\.ManyThreads.*|Threads\.EverythingAtOnceFromManyThreads|SparseProduct\.ManyThreadsOnOneMatrix)$'
export OMP_THREAD_LIMIT=1 OMP_NUM_THREADS=1 TESSERA_NUM_THREADS=1
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
ctest --test-dir "$build" --output-on-failure -j "$jobs" -R "$tests" --no-tests=error "$@"
