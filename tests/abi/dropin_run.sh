#!/bin/sh
# Drop-in test: a program linked with -lblas (not Tessera) checks its own products as it is, then
# under LD_PRELOAD=libtessera.so.0, whose call log must show Tessera served its sgemm and dgemm.
# usage: dropin_run.sh PROGRAM LIBTESSERA BACKEND [BACKEND_PROBE]
#   BACKEND: cpu or cuda (sets TESSERA_BACKEND); with cuda, BACKEND_PROBE (backend_probe) decides
#   whether the backend is available, and the test is skipped (exit 77) where it is not.
set -u

program=${1:?usage: dropin_run.sh PROGRAM LIBTESSERA BACKEND [PROBE]}
library=${2:?usage: dropin_run.sh PROGRAM LIBTESSERA BACKEND [PROBE]}
backend=${3:?usage: dropin_run.sh PROGRAM LIBTESSERA BACKEND [PROBE]}
probe=${4:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-dropin.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

fail() { echo "FAIL: $*"; exit 1; }

if [ "$backend" != cpu ]; then
    [ -n "$probe" ] || fail "backend $backend needs the backend_probe program"
    "$probe" "$backend"
    status=$?
    if [ $status -eq 77 ]; then
        echo "SKIPPED: the $backend backend is not available on this machine (see above);"
        echo "run this test where it is (a GPU with the CUDA plugin built)"
        exit 77
    fi
    [ $status -eq 0 ] || fail "backend_probe $backend exited with $status"
fi

# The program must not be linked with Tessera: its BLAS comes from the system.
needed=$(readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' | tr '\n' ' ')
echo "program: $program"
echo "NEEDED: $needed"
case " $needed " in
    *" libtessera"*) fail "the program is linked with Tessera; a drop-in test needs a program linked with -lblas" ;;
esac
case " $needed " in
    *" libblas.so"* | *" libopenblas"*) ;;
    *) fail "the program does not link a system BLAS" ;;
esac
blas=$(ldd "$program" | awk '$1 ~ /^lib(open)?blas/ { print $3 }' | head -n 1)
echo "system BLAS: $blas -> $(readlink -f "$blas")"

# 1. Without the preload: the system BLAS answers, and Tessera logs nothing.
TESSERA_VERBOSE=1 "$program" >"$tmp/plain.out" 2>"$tmp/plain.err"
status=$?
cat "$tmp/plain.out"
[ $status -eq 0 ] || { cat "$tmp/plain.err"; fail "the program fails without the preload (status $status)"; }
if grep -q '^tessera: ' "$tmp/plain.err"; then
    fail "Tessera logged calls although it was not preloaded"
fi

# 2. With the preload: the same program, served by Tessera.
LD_PRELOAD="$library${LD_PRELOAD:+ $LD_PRELOAD}" TESSERA_VERBOSE=1 TESSERA_BACKEND="$backend" \
    "$program" >"$tmp/preload.out" 2>"$tmp/preload.err"
status=$?
cat "$tmp/preload.out"
echo "call log (stderr) under LD_PRELOAD=$library TESSERA_BACKEND=$backend:"
sed 's/^/  /' "$tmp/preload.err"
[ $status -eq 0 ] || fail "the program fails under the preload (status $status)"
for routine in sgemm dgemm; do
    served=$(grep -c "^tessera: $routine .* backend=$backend " "$tmp/preload.err")
    [ "$served" -ge 1 ] || fail "no '$routine' call served by Tessera's $backend backend in the log"
    echo "$routine: $served call(s) served by Tessera (backend=$backend)"
done
others=$(grep '^tessera: [sd]gemm ' "$tmp/preload.err" | grep -vc " backend=$backend ")
[ "$others" -eq 0 ] || fail "$others call(s) ran on another backend than $backend"
echo "drop-in test passed"
exit 0
