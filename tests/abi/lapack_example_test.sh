#!/bin/sh
# Example test: examples/lapack, configured with FindBLAS/FindLAPACK against this build's
# libtessera.so (BLAS_LIBRARIES) and Debian's reference LAPACK, built and run with
# TESSERA_VERBOSE=1. dgesv_ must solve the system, and the call log must show Tessera's dgemm
# lines, which come from inside LAPACK's dgetrf (the program itself calls no dgemm).
# usage: lapack_example_test.sh CMAKE EXAMPLE_DIR LIBTESSERA_SO [CC]   (77: no reference LAPACK)
set -u
cmake=${1:?usage: lapack_example_test.sh CMAKE EXAMPLE_DIR LIBTESSERA_SO [CC]}
example=${2:?usage}
library=${3:?usage}
cc=${4:-${CC:-cc}}

ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2> /dev/null || "$cc" -print-multiarch 2> /dev/null)
if [ -z "$ma" ] || { [ ! -e "/usr/lib/$ma/lapack/liblapack.so" ] && [ ! -e "/usr/lib/$ma/lapack/liblapack.so.3" ]; }; then
    echo "skipped: no reference LAPACK in /usr/lib/$ma/lapack (apt-get install liblapack-dev)"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-lapack.XXXXXX") || { echo "FAIL: mktemp"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
die() { echo "FAIL: $*"; exit 1; }

echo "== configure $example with -DBLAS_LIBRARIES=$library"
"$cmake" -S "$example" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" \
    -DBLAS_LIBRARIES="$library" > "$tmp/configure.log" 2>&1 \
    || { cat "$tmp/configure.log"; die "configuring the example failed"; }
grep -E '^-- (BLAS|LAPACK):' "$tmp/configure.log" | sed 's/^/  /'
grep -q "^-- LAPACK: .*/lapack/liblapack" "$tmp/configure.log" \
    || die "the example did not take the reference LAPACK from /usr/lib/$ma/lapack"
"$cmake" --build "$tmp/build" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; die "building the example failed"; }
program=$tmp/build/dgesv
echo "== the loader's choices"
ldd "$program" | grep -E 'libtessera|liblapack|libblas' | sed 's/^/  /'

echo "== run with TESSERA_VERBOSE=1"
TESSERA_VERBOSE=1 "$program" > "$tmp/out.log" 2> "$tmp/err.log"
status=$?
sed 's/^/  /' "$tmp/out.log"
grep -v '^tessera:' "$tmp/err.log" | head -n 20
[ $status -eq 0 ] || die "the example exited with status $status"
grep -q '^dgemm_ .*(Tessera)$' "$tmp/out.log" || die "dgemm_ is not served by Tessera"
gemm=$(grep -c '^tessera: dgemm ' "$tmp/err.log")
echo "== the call log: $gemm 'tessera: dgemm' lines (from dgetrf), by routine:"
sed -n 's/^tessera: \([a-z0-9_]*\) .*/\1/p' "$tmp/err.log" | sort | uniq -c | sort -rn | sed 's/^/  /'
echo "  the first dgemm lines of a panel and of the trailing updates:"
grep -m 2 '^tessera: dgemm ' "$tmp/err.log" | sed 's/^/    /'
grep -m 2 '^tessera: dgemm .* k=64 ' "$tmp/err.log" | sed 's/^/    /'
[ "$gemm" -gt 0 ] || die "no 'tessera: dgemm' line: LAPACK's products did not reach Tessera"
echo "lapack example passed"
