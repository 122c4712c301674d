#!/bin/sh
# ScaLAPACK's PSGEMM/PDGEMM on a P x Q grid with Tessera as the node BLAS, linked or preloaded:
# every product is checked on every rank against the serial product (pgemm_check), and every
# rank's call log must show that Tessera ran its sgemm and dgemm calls.
# usage: scalapack_test.sh linked|preload PROGRAM LIBTESSERA RUN_SH P Q
# Exits 77 (skipped) when mpirun is absent.
set -u
route=${1:?usage: scalapack_test.sh linked|preload PROGRAM LIBTESSERA RUN_SH P Q}
program=$2 library=$3 run=$4 p=$5 q=$6

fail() { echo "FAIL: $*"; exit 1; }

command -v "${MPIRUN:-mpirun}" > /dev/null 2>&1 || {
    echo "SKIPPED: no mpirun (Debian: apt-get install openmpi-bin libscalapack-openmpi-dev)"
    exit 77
}

# How the program reaches its BLAS: the libraries it needs, in the order the loader searches.
needed=$(readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' | tr '\n' ' ')
echo "NEEDED: $needed"
case "$route" in
linked)
    first=$(echo "$needed" | tr ' ' '\n' | grep -n -m1 '^libtessera' | cut -d: -f1)
    other=$(echo "$needed" | tr ' ' '\n' | grep -n -m1 '^lib\(scalapack\|blas\|openblas\)' | cut -d: -f1)
    [ -n "$first" ] || fail "the linked program does not need libtessera"
    [ -n "$other" ] && [ "$first" -gt "$other" ] && fail "libtessera comes after the system libraries"
    set -- ;;
preload)
    case " $needed " in *" libtessera"*) fail "the preload program is linked with Tessera" ;; esac
    set -- --preload "$library" ;;
*) fail "route must be linked or preload, not $route" ;;
esac

out=$(mktemp "${TMPDIR:-/tmp}/tessera-scalapack.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT HUP INT TERM
TESSERA_NUM_THREADS=1 sh "$run" "$@" --require "sgemm dgemm" $((p * q)) "$program" "$p" "$q" > "$out" 2>&1
status=$?
cat "$out"
[ $status -eq 0 ] || fail "the run failed (status $status)"
grep -q '^all products within the bound$' "$out" || fail "the program did not report its products checked"
served=$(grep -c '^rank [0-9]*: Tessera served' "$out")
[ "$served" -eq $((p * q)) ] || fail "call logs of $served rank(s), $((p * q)) expected"
if grep '^rank [0-9]*: Tessera served' "$out" | grep -v '(\([0-9]* cpu\))' | grep -q .; then
    fail "a product ran on another backend than the CPU"
fi
echo "scalapack $route ${p}x${q}: passed"
